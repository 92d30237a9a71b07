/**
 * Solves every question of a DQA data folder with a chosen rule set and dump kind, and
 * compares with the annotated answers. Used by the accuracy tests and the benchmark script.
 * Each dump is parsed and prepared once, whatever the number of questions sharing it, and
 * the time spent there is reported apart from solving.
 */
import { prepareMarket, solveBuilding } from './building';
import type { Market } from './building-market';
import { readBuildingQuestions, readDumpText, readLocatingQuestions, type DqaScenario } from './dataset';
import { loadBuildingDump, loadLocatingDump, type DumpKind } from './load';
import { prepareTradeGraph, solveLocating } from './locating';
import type { TradeGraph } from './locating-graph';
import type { DecisionResult, RuleSet } from './simulation';

export interface QuestionOutcome {
  id: string;
  answer: string;
  result: DecisionResult;
  correct: boolean;
  /** The annotated answer is among the candidates tied with the best (within 1e-9). */
  answerTied: boolean;
}

export interface AccuracyReport {
  scenario: DqaScenario;
  rules: RuleSet;
  kind: DumpKind;
  total: number;
  correct: number;
  outcomes: QuestionOutcome[];
  /** Reading, parsing, loading and preparing every distinct dump. */
  loadMs: number;
  solveMs: number;
  candidatesEvaluated: number;
}

function timed<T>(work: () => T): { value: T; ms: number } {
  const start = performance.now();
  const value = work();
  return { value, ms: performance.now() - start };
}

interface Question {
  id: string;
  answer: string;
  dump: string;
}

function run<Prepared>(
  scenario: DqaScenario,
  rules: RuleSet,
  kind: DumpKind,
  questions: Question[],
  load: (dump: string) => Prepared,
  solve: (prepared: Prepared, index: number) => DecisionResult,
): AccuracyReport {
  const prepared = new Map<string, Prepared>();
  let loadMs = 0;
  for (const { dump } of questions) {
    if (prepared.has(dump)) continue;
    const { value, ms } = timed(() => load(dump));
    prepared.set(dump, value);
    loadMs += ms;
  }
  const { value: outcomes, ms: solveMs } = timed(() =>
    questions.map((question, index): QuestionOutcome => {
      const result = solve(prepared.get(question.dump) as Prepared, index);
      return { id: question.id, answer: question.answer, result, correct: result.best === question.answer, answerTied: result.tied.includes(question.answer) };
    }),
  );
  return {
    scenario,
    rules,
    kind,
    total: outcomes.length,
    correct: outcomes.filter((o) => o.correct).length,
    outcomes,
    loadMs,
    solveMs,
    candidatesEvaluated: outcomes.reduce((sum, o) => sum + o.result.candidates.length, 0),
  };
}

export function runLocatingAccuracy(root: string, rules: RuleSet, kind: DumpKind): AccuracyReport {
  const questions = readLocatingQuestions(root);
  return run<TradeGraph>(
    'locating',
    rules,
    kind,
    questions.map((q) => ({ id: q.id, answer: q.answer, dump: kind === 'relational' ? q.rdb : q.gdb })),
    (dump) => prepareTradeGraph(loadLocatingDump(readDumpText(root, 'locating', dump), kind, dump)),
    (graph, index) => {
      const question = questions[index] as (typeof questions)[number];
      return solveLocating(graph, { country: question.country, home: question.home }, { rules });
    },
  );
}

export function runBuildingAccuracy(root: string, rules: RuleSet, kind: DumpKind): AccuracyReport {
  const questions = readBuildingQuestions(root);
  return run<Market>(
    'building',
    rules,
    kind,
    questions.map((q) => ({ id: q.id, answer: q.answer, dump: kind === 'relational' ? q.rdb : q.gdb })),
    (dump) => prepareMarket(loadBuildingDump(readDumpText(root, 'building', dump), kind, dump)),
    (market, index) => solveBuilding(market, { goods: (questions[index] as (typeof questions)[number]).goods }, { rules }),
  );
}
