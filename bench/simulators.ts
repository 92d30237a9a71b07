/**
 * Benchmark of the DQA simulators: `npx tsx bench/simulators.ts` (reads DQA_DIR, default
 * ../shared/dqa). For each scenario, rule set and dump kind it prints the time to read,
 * parse, load and prepare the dumps, then solving time per question, candidates evaluated
 * per second and total solve time. Solving is repeated and the fastest run is reported, so
 * JIT warm-up does not dominate the figures; the first (cold) run is shown alongside.
 */
import { dqaRoot } from '../src-main/dqa/dataset';
import { runBuildingAccuracy, runLocatingAccuracy, type AccuracyReport } from '../src-main/dqa/dev-accuracy';
import type { DumpKind } from '../src-main/dqa/load';
import type { RuleSet } from '../src-main/dqa/simulation';

const REPEATS = 5;

interface Row {
  scenario: string;
  rules: RuleSet;
  kind: DumpKind;
  accuracy: string;
  loadMs: number;
  coldSolveMs: number;
  solveMs: number;
  perQuestionMs: number;
  candidatesPerSecond: number;
}

function measure(run: () => AccuracyReport): Row {
  const reports = Array.from({ length: REPEATS }, run);
  const first = reports[0] as AccuracyReport;
  const fastest = reports.reduce((best, report) => (report.solveMs < best.solveMs ? report : best));
  return {
    scenario: first.scenario,
    rules: first.rules,
    kind: first.kind,
    accuracy: `${first.correct}/${first.total}`,
    loadMs: first.loadMs,
    coldSolveMs: first.solveMs,
    solveMs: fastest.solveMs,
    perQuestionMs: fastest.solveMs / fastest.total,
    candidatesPerSecond: fastest.candidatesEvaluated / (fastest.solveMs / 1000),
  };
}

function main(): void {
  const root = dqaRoot();
  const rows: Row[] = [];
  for (const rules of ['compat', 'stated'] as const) {
    for (const kind of ['relational', 'graph'] as const) {
      rows.push(measure(() => runLocatingAccuracy(root, rules, kind)));
      rows.push(measure(() => runBuildingAccuracy(root, rules, kind)));
    }
  }
  const fixed = (value: number, digits = 1): string => value.toFixed(digits);
  console.table(
    rows.map((row) => ({
      scenario: row.scenario,
      rules: row.rules,
      dump: row.kind,
      accuracy: row.accuracy,
      'parse+load ms': fixed(row.loadMs),
      'cold solve ms': fixed(row.coldSolveMs),
      'solve ms': fixed(row.solveMs),
      'ms / question': fixed(row.perQuestionMs, 3),
      'candidates / s': Math.round(row.candidatesPerSecond).toLocaleString('en-US'),
    })),
  );
  const totalSolve = rows.reduce((sum, row) => sum + row.solveMs, 0);
  console.log(`total solve time over ${rows.length} configurations (warm): ${fixed(totalSolve)} ms`);
}

main();
