/**
 * Locating scenario (Europa Universalis IV trade): where should a country place its one
 * merchant to maximize its profit at its home trade node? Pure data-in/data-out.
 */
import { decide } from './decision-ranking';
import type { LocatingData, LocatingQuestionInput } from './locating-data';
import { evaluateLocatingCompat } from './locating-compat';
import { prepareTradeGraph, type TradeGraph } from './locating-graph';
import { evaluateLocatingStated } from './locating-stated';
import type { DecisionResult, SolveOptions } from './simulation';

export type { LocatingCountry, LocatingData, LocatingFlow, LocatingNodeCountry, LocatingQuestionInput, LocatingTradeNode } from './locating-data';

/** Accepts raw data, or a graph prepared once with prepareTradeGraph when many questions share one database. */
export function solveLocating(data: LocatingData | TradeGraph, question: LocatingQuestionInput, options: SolveOptions): DecisionResult {
  const graph = 'nodes' in data ? data : prepareTradeGraph(data);
  const evaluation =
    options.rules === 'compat' ? evaluateLocatingCompat(graph, question.country, question.home) : evaluateLocatingStated(graph, question.country, question.home);
  return decide({
    ...evaluation,
    direction: 'maximize',
    tieBreak: options.rules === 'compat' ? 'first-strictly-best' : 'first-within-tolerance',
    objective: `${question.country} profit at ${question.home} (maximize; ${options.rules} rules)`,
  });
}

export { prepareTradeGraph };
