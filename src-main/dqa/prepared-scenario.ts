/**
 * A scenario database loaded and indexed once for the simulators, whatever it was read from
 * (a connector, or a dump parsed in memory), with how its rows were ordered.
 */
import type { Connector } from '../connectors/connector';
import { prepareMarket, solveBuilding, solveBuildingTogether } from './building';
import type { Market } from './building-market';
import type { DqaScenario } from './dataset';
import { loadBuildingFromConnector, loadLocatingFromConnector } from './from-connector';
import { prepareTradeGraph, solveLocating } from './locating';
import type { TradeGraph } from './locating-graph';
import type { BuildingData } from './building-data';
import type { LocatingData } from './locating-data';
import type { DecisionResult, RuleSet } from './simulation';

export type PreparedScenario = { scenario: 'locating'; graph: TradeGraph } | { scenario: 'building'; market: Market };

export interface LoadedScenario {
  prepared: PreparedScenario;
  ordering: string[];
  warnings: string[];
}

export function prepareScenario(scenario: 'locating', data: LocatingData): PreparedScenario;
export function prepareScenario(scenario: 'building', data: BuildingData): PreparedScenario;
export function prepareScenario(scenario: DqaScenario, data: LocatingData | BuildingData): PreparedScenario {
  return scenario === 'locating' ? { scenario, graph: prepareTradeGraph(data as LocatingData) } : { scenario, market: prepareMarket(data as BuildingData) };
}

export async function loadScenarioFromConnector(connector: Connector, scenario: DqaScenario, source: string, dump?: string): Promise<LoadedScenario> {
  if (scenario === 'locating') {
    const { data, ordering, warnings } = await loadLocatingFromConnector(connector, source, dump);
    return { prepared: prepareScenario('locating', data), ordering, warnings };
  }
  const { data, ordering, warnings } = await loadBuildingFromConnector(connector, source, dump);
  return { prepared: prepareScenario('building', data), ordering, warnings };
}

/** The question fields each scenario's simulator needs. */
export type ScenarioQuestion = { country: string; home: string } | { goods: string };

export function solvePrepared(prepared: PreparedScenario, question: ScenarioQuestion, rules: RuleSet): DecisionResult {
  if (prepared.scenario === 'locating') {
    if (!('home' in question)) throw new Error('a Locating database needs a Locating question (country and home)');
    return solveLocating(prepared.graph, { country: question.country, home: question.home }, { rules });
  }
  if (!('goods' in question)) throw new Error('a Building database needs a Building question (goods)');
  return solveBuilding(prepared.market, { goods: question.goods }, { rules });
}

/**
 * Several questions on one prepared database: each gets what `solvePrepared` gives it (a
 * result or the error it throws), Building questions under compat rules sharing one
 * simulation per candidate.
 */
export function solvePreparedTogether(prepared: PreparedScenario, questions: readonly ScenarioQuestion[], rules: RuleSet): (DecisionResult | Error)[] {
  const one = (question: ScenarioQuestion): DecisionResult | Error => {
    try {
      return solvePrepared(prepared, question, rules);
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  };
  if (prepared.scenario !== 'building' || rules !== 'compat' || questions.length < 2 || !questions.every((q) => 'goods' in q)) return questions.map(one);
  try {
    return solveBuildingTogether(prepared.market, questions as { goods: string }[], { rules });
  } catch {
    // Some question fails: each one alone, so every question gets its own result or error.
    return questions.map(one);
  }
}
