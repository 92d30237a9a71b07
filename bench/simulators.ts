/**
 * Benchmark of the DQA simulators: `npm run bench:simulators` (reads DQA_DIR, default
 * ../shared/dqa). Prints, for each scenario, rule set and dump kind:
 * 1. from the dump files parsed in memory: the time to read, parse, load and index the dumps,
 *    then solving time per question, candidates evaluated per second and the time to solve the
 *    whole scenario (fastest of REPEATS warm runs, the cold first run alongside);
 * 2. through the connectors, as `dwb dqa solve` reads them: the time to import every dump into
 *    an embedded engine (SQLite for relational, Kùzu for graph) and read it back, then the
 *    solve time of each rule set on that data;
 * 3. the time to solve the whole dev subset (both scenarios) per rule set and dump kind.
 * Loading and parsing are always reported apart from solving.
 */
import { join } from 'node:path';
import { dqaRoot } from '../src-main/dqa/dataset';
import { runBuildingAccuracy, runLocatingAccuracy, type AccuracyReport } from '../src-main/dqa/dev-accuracy';
import type { DumpKind } from '../src-main/dqa/load';
import { readQuestionSet } from '../src-main/dqa/question-file';
import { importingDatabases, type DbKind } from '../src-main/dqa/scenario-databases';
import { solveQuestionSet } from '../src-main/dqa/solve-questions';
import type { RuleSet } from '../src-main/dqa/simulation';

const REPEATS = 5;
const ruleSets: RuleSet[] = ['compat', 'stated'];
const fixed = (value: number, digits = 1): string => value.toFixed(digits);
const perSecond = (count: number, ms: number): string => Math.round(count / (ms / 1000)).toLocaleString('en-US');

interface ParsedRow {
  scenario: string;
  rules: RuleSet;
  kind: DumpKind;
  accuracy: string;
  loadMs: number;
  coldSolveMs: number;
  solveMs: number;
  questions: number;
  candidates: number;
}

function measure(run: () => AccuracyReport): ParsedRow {
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
    questions: fastest.total,
    candidates: fastest.candidatesEvaluated,
  };
}

function benchParsedDumps(root: string): ParsedRow[] {
  const rows: ParsedRow[] = [];
  for (const rules of ruleSets) {
    for (const kind of ['relational', 'graph'] as const) {
      rows.push(measure(() => runLocatingAccuracy(root, rules, kind)));
      rows.push(measure(() => runBuildingAccuracy(root, rules, kind)));
    }
  }
  console.log('\n1. Dumps parsed in memory (load = read + parse + index; solve = fastest warm run)');
  console.table(
    rows.map((row) => ({
      scenario: row.scenario,
      rules: row.rules,
      dump: row.kind,
      accuracy: row.accuracy,
      'load ms': fixed(row.loadMs),
      'cold solve ms': fixed(row.coldSolveMs),
      'solve ms (all questions)': fixed(row.solveMs),
      'ms / question': fixed(row.solveMs / row.questions, 3),
      'candidates / s': perSecond(row.candidates, row.solveMs),
    })),
  );
  return rows;
}

async function benchConnectors(root: string): Promise<void> {
  const rows: Record<string, string>[] = [];
  for (const scenario of ['locating', 'building'] as const) {
    for (const db of ['rdb', 'gdb'] as DbKind[]) {
      const set = readQuestionSet(join(root, scenario, 'questions.json'));
      const databases = importingDatabases({ scenario, db, baseDir: set.baseDir });
      try {
        const row: Record<string, string> = { scenario, db };
        for (const rules of ruleSets) {
          // The first run imports and reads every dump; the rule sets share the loaded data.
          const run = await solveQuestionSet(set, { rules, db, databases });
          if (rules === 'compat') {
            const vias = await Promise.all([...new Set(run.verdicts.map((v) => v.database))].map((dump) => databases.load(dump)));
            row['read through'] = [...new Set(vias.map((v) => v.via.split(' (')[0] ?? ''))].join(', ');
            row['dumps'] = String(vias.length);
            row['import + read ms (wall)'] = fixed(run.loadMs);
          }
          row[`${rules} accuracy`] = `${run.correct}/${run.total}`;
          row[`${rules} solve ms`] = fixed(run.solveMs);
        }
        rows.push(row);
      } finally {
        await databases.close();
      }
    }
  }
  console.log('\n2. Through the connectors (dumps imported into SQLite / Kùzu, read back read-only; two loads at a time)');
  console.table(rows);
}

function printWholeSubset(rows: ParsedRow[]): void {
  console.log('\n3. Whole dev subset (81 Locating + 36 Building questions), warm solve time');
  for (const rules of ruleSets) {
    for (const kind of ['relational', 'graph'] as const) {
      const selected = rows.filter((row) => row.rules === rules && row.kind === kind);
      const solveMs = selected.reduce((sum, row) => sum + row.solveMs, 0);
      const loadMs = selected.reduce((sum, row) => sum + row.loadMs, 0);
      const questions = selected.reduce((sum, row) => sum + row.questions, 0);
      const candidates = selected.reduce((sum, row) => sum + row.candidates, 0);
      console.log(
        `${rules.padEnd(6)} ${kind.padEnd(10)} ${questions} questions: solve ${fixed(solveMs)} ms (${fixed(solveMs / questions, 3)} ms / question, ${perSecond(candidates, solveMs)} candidates / s); load ${fixed(loadMs)} ms`,
      );
    }
  }
}

async function main(): Promise<void> {
  const root = dqaRoot();
  const parsed = benchParsedDumps(root);
  await benchConnectors(root);
  printWholeSubset(parsed);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
