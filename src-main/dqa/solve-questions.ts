/**
 * Solves every question of a QuestionSet with a simulator and compares each decision with the
 * annotated answer, both exactly and counting ties (the annotation is among the candidates
 * tied with the best). Databases come from a ScenarioDatabases, so the same code runs on
 * imported dumps and on the analyst's own databases.
 *
 * One bad database or question does not end the run: its questions get an error verdict (no
 * decision, counted as a disagreement) and the others are still decided, so a batch over
 * unseen data always ends with its accuracy lines.
 */
import type { DbKind, LoadedDatabase, ScenarioDatabases } from './scenario-databases';
import type { QuestionSet } from './question-file';
import { solvePreparedTogether, type ScenarioQuestion } from './prepared-scenario';
import type { DecisionResult, RuleSet } from './simulation';

export interface QuestionVerdict {
  id: string;
  /** The question's dump (its `rdb` or `gdb` value). */
  database: string;
  /** How the database was read; null when it could not be. */
  via: string | null;
  /** The simulator's best decision; null when the question could not be decided (see `error`). */
  decision: string | null;
  tied: string[];
  annotation: string;
  /** The decision equals the annotation. */
  agrees: boolean;
  /** The annotation is in the tied-best set. */
  agreesWithTies: boolean;
  result: DecisionResult | null;
  error: string | null;
  solveMs: number;
}

export interface SolveRun {
  rules: RuleSet;
  db: DbKind;
  verdicts: QuestionVerdict[];
  correct: number;
  correctWithTies: number;
  total: number;
  errors: number;
  /** Wall time to import, read and index every distinct database (loads overlap). */
  loadMs: number;
  solveMs: number;
  candidatesEvaluated: number;
}

export interface PlainQuestion {
  id: string;
  answer: string;
  dump: string;
  input: ScenarioQuestion;
}

export function plainQuestions(set: QuestionSet, db: DbKind): PlainQuestion[] {
  if (set.scenario === 'locating') {
    return set.questions.map((q) => ({ id: q.id, answer: q.answer, dump: db === 'rdb' ? q.rdb : q.gdb, input: { country: q.country, home: q.home } }));
  }
  return set.questions.map((q) => ({ id: q.id, answer: q.answer, dump: db === 'rdb' ? q.rdb : q.gdb, input: { goods: q.goods } }));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

type LoadOutcome = { ok: true; database: LoadedDatabase } | { ok: false; error: string };

/** Loads the questions' databases a few at a time (imports spend most of their time in other processes). */
async function loadAll(dumps: readonly string[], databases: ScenarioDatabases, concurrency: number): Promise<Map<string, LoadOutcome>> {
  const queue = [...dumps];
  const outcomes = new Map<string, LoadOutcome>();
  const lane = async (): Promise<void> => {
    for (let dump = queue.shift(); dump !== undefined; dump = queue.shift()) {
      try {
        outcomes.set(dump, { ok: true, database: await databases.load(dump) });
      } catch (error) {
        outcomes.set(dump, { ok: false, error: `cannot load ${dump}: ${messageOf(error)}` });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, lane));
  return outcomes;
}

/** Two lanes suit the usual two cores: an import in a child process overlaps with reading another. */
export const DEFAULT_LOAD_CONCURRENCY = 2;

function failedVerdict(question: PlainQuestion, via: string | null, error: string): QuestionVerdict {
  return { id: question.id, database: question.dump, via, decision: null, tied: [], annotation: question.answer, agrees: false, agreesWithTies: false, result: null, error, solveMs: 0 };
}

export async function solveQuestionSet(
  set: QuestionSet,
  options: { rules: RuleSet; db: DbKind; databases: ScenarioDatabases; loadConcurrency?: number; onVerdict?: (verdict: QuestionVerdict) => void },
): Promise<SolveRun> {
  const verdicts: QuestionVerdict[] = [];
  let solveMs = 0;
  const questions = plainQuestions(set, options.db);
  const loadStarted = performance.now();
  const loads = await loadAll([...new Set(questions.map((q) => q.dump))], options.databases, options.loadConcurrency ?? DEFAULT_LOAD_CONCURRENCY);
  const loadMs = performance.now() - loadStarted;
  // Questions on one database are solved together (Building compat simulates each candidate
  // once for all their goods); each still gets its own result or error. The group's time is
  // shared evenly among its questions.
  const outcomes = new Map<PlainQuestion, { result: DecisionResult | Error; ms: number }>();
  const byDump = new Map<string, PlainQuestion[]>();
  for (const question of questions) {
    const group = byDump.get(question.dump);
    if (group === undefined) byDump.set(question.dump, [question]);
    else group.push(question);
  }
  for (const [dump, group] of byDump) {
    const load = loads.get(dump) as LoadOutcome;
    if (!load.ok) continue;
    const started = performance.now();
    const results = solvePreparedTogether(
      load.database.prepared,
      group.map((q) => q.input),
      options.rules,
    );
    const ms = (performance.now() - started) / group.length;
    group.forEach((question, index) => outcomes.set(question, { result: results[index] as DecisionResult | Error, ms }));
  }
  for (const question of questions) {
    const load = loads.get(question.dump) as LoadOutcome;
    let verdict: QuestionVerdict;
    const outcome = outcomes.get(question);
    if (!load.ok) {
      verdict = failedVerdict(question, null, load.error);
    } else if (outcome === undefined || outcome.result instanceof Error) {
      verdict = failedVerdict(question, load.database.via, messageOf(outcome?.result ?? 'not solved'));
    } else {
      const { result } = outcome;
      solveMs += outcome.ms;
      verdict = {
        id: question.id,
        database: question.dump,
        via: load.database.via,
        decision: result.best,
        tied: result.tied,
        annotation: question.answer,
        agrees: result.best === question.answer,
        agreesWithTies: result.tied.includes(question.answer),
        result,
        error: null,
        solveMs: outcome.ms,
      };
    }
    verdicts.push(verdict);
    options.onVerdict?.(verdict);
  }
  return {
    rules: options.rules,
    db: options.db,
    verdicts,
    correct: verdicts.filter((v) => v.agrees).length,
    correctWithTies: verdicts.filter((v) => v.agreesWithTies).length,
    total: verdicts.length,
    errors: verdicts.filter((v) => v.error !== null).length,
    loadMs,
    solveMs,
    candidatesEvaluated: verdicts.reduce((sum, v) => sum + (v.result?.candidates.length ?? 0), 0),
  };
}
