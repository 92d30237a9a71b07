/**
 * A technique benchmark over DQA questions: every question is run by one technique against
 * its own database, several at once (a bounded pool), each into DIR/<question-id>/ as a
 * `dwb run` output directory, then judged by the exact simulator and recorded
 * (result.json). Questions already recorded are not run again, so a batch that was killed or
 * stopped finishes where it left off.
 */
import type { RunFidelityRequest } from '../contract/fidelity';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { WorkbenchError } from '../contract/errors';
import type { BuildingQuestion, LocatingQuestion } from '../dqa/dataset';
import type { ScenarioQuestion } from '../dqa/prepared-scenario';
import type { QuestionSet } from '../dqa/question-file';
import type { DbKind } from '../dqa/scenario-databases';
import { runPool } from './bounded-pool';
import { requirePlaybook } from '../engine/techniques/playbook-required';
import { techniqueNamed } from '../engine/techniques/registry';
import { checkedTechniqueOptions, variantLabelOf } from '../engine/techniques/technique-options';
import { dqaQuestionText } from './dqa-question-text';
import { failedQuestion, judgeRun } from './judge';
import { questionDatabases } from './question-databases';
import { readQuestionResult, writeQuestionResult, type QuestionResult } from './question-result';
import { readRunFacts } from './run-facts';
import { runQuestion, type QuestionModel } from './run-question';
import { intendedSettings, recordedExtras, recordedSettings, resumeRefusal, settingDifferences } from './resume-settings';

export interface BenchmarkQuestion {
  id: string;
  scenario: QuestionSet['scenario'];
  questionsFile: string;
  dump: string;
  dumpPath: string;
  annotation: string;
  text: string;
  rules: string;
  scenarioQuestion: ScenarioQuestion;
}

/** Every question of the files, in order; ids must be unique over all of them (each names a directory). */
export function benchmarkQuestions(sets: readonly QuestionSet[], db: DbKind): BenchmarkQuestion[] {
  const seen = new Map<string, string>();
  const questions: BenchmarkQuestion[] = [];
  for (const set of sets) {
    const all: (LocatingQuestion | BuildingQuestion)[] = set.questions;
    for (const question of all) {
      const earlier = seen.get(question.id);
      if (earlier !== undefined) throw new WorkbenchError('invalid-request', `question id ${question.id} appears in both ${earlier} and ${set.path}; ids name the result directories and must be unique`);
      seen.set(question.id, set.path);
      const dump = db === 'rdb' ? question.rdb : question.gdb;
      questions.push({
        id: question.id,
        scenario: set.scenario,
        questionsFile: set.path,
        dump,
        dumpPath: resolve(set.baseDir, dump),
        annotation: question.answer,
        text: dqaQuestionText(question),
        rules: question.business_rules,
        scenarioQuestion: 'home' in question ? { country: question.country, home: question.home } : { goods: (question as BuildingQuestion).goods },
      });
    }
  }
  return questions;
}

export interface BenchmarkProgress {
  done: number;
  total: number;
  correct: number;
  correctWithTies: number;
  tokens: number;
  inFlight: number;
}

export interface BenchmarkOptions {
  questions: readonly BenchmarkQuestion[];
  technique: string;
  db: DbKind;
  outDir: string;
  model: QuestionModel;
  maxSteps: number;
  /** The model's context window, which prompts are kept inside; null when unknown. */
  contextTokens?: number | null;
  concurrency: number;
  /** A learned playbook for the `autoplan` technique. */
  playbook?: string;
  /** Its version hash, recorded in every run's log. */
  playbookVersion?: string;
  /** The technique's own options every run uses (DeLLMa's variant and sizes), checked against its schema; absent: its defaults. */
  techniqueOptions?: Record<string, unknown>;
  /** The fidelity every run uses (the CLI and the app pass `paper` unless told otherwise); recorded in each run's run-start. */
  fidelity?: RunFidelityRequest;
  signal?: AbortSignal;
  /** Once per question, recorded earlier (`resumed`) or just now. */
  onResult?: (result: QuestionResult, resumed: boolean, progress: BenchmarkProgress) => void;
  /** A question starts running. */
  onStart?: (question: BenchmarkQuestion, progress: BenchmarkProgress) => void;
}

export interface BenchmarkOutcome {
  /** In question order; questions not decided (the batch was stopped) are missing. */
  results: QuestionResult[];
  resumed: number;
  stopped: boolean;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}


export async function runBenchmark(options: BenchmarkOptions): Promise<BenchmarkOutcome> {
  const { questions, technique, db, outDir } = options;
  requirePlaybook(technique, options.playbook, `none was given for ${db}`);
  // How results name the variant the options make (DeLLMa's sizes); undefined when none is named.
  const variant = variantLabelOf(techniqueNamed(technique), checkedTechniqueOptions(techniqueNamed(technique), options.techniqueOptions)) ?? undefined;
  mkdirSync(outDir, { recursive: true });
  const databases = questionDatabases(outDir, db);
  const results = new Map<string, QuestionResult>();
  const progress: BenchmarkProgress = { done: 0, total: questions.length, correct: 0, correctWithTies: 0, tokens: 0, inFlight: 0 };
  const record = (result: QuestionResult, resumed: boolean): void => {
    results.set(result.id, result);
    progress.done += 1;
    if (result.correct) progress.correct += 1;
    if (result.correctWithTies) progress.correctWithTies += 1;
    progress.tokens += result.totalTokens;
    options.onResult?.(result, resumed, progress);
  };

  const pending: BenchmarkQuestion[] = [];
  const recorded: QuestionResult[] = [];
  for (const question of questions) {
    const earlier = readQuestionResult(join(outDir, question.id));
    if (earlier === null) {
      pending.push(question);
      continue;
    }
    if (earlier.technique !== technique || earlier.db !== db) {
      throw new WorkbenchError('invalid-request', `${join(outDir, question.id)} holds a run of ${earlier.technique} on ${earlier.db}, not ${technique} on ${db}: use another --out directory`);
    }
    if (earlier.variant !== variant) {
      throw new WorkbenchError('invalid-request', `${join(outDir, question.id)} holds a run of ${earlier.technique} (${earlier.variant ?? 'default settings'}), not ${variant ?? 'default settings'}: use another --out directory`);
    }
    recorded.push(earlier);
  }
  // Every earlier answer is checked before any is counted: a resume with other settings is refused whole.
  const intended = intendedSettings({ technique, variant, model: options.model, maxSteps: options.maxSteps, playbook: options.playbook, playbookVersion: options.playbookVersion, fidelity: options.fidelity });
  for (const earlier of recorded) {
    const dir = join(outDir, earlier.id);
    const settings = recordedSettings(earlier);
    if (settings === null) throw new WorkbenchError('invalid-request', `${dir} was recorded before results named their model and settings, so they cannot be compared with this run's: give another --out directory`);
    const differences = settingDifferences({ ...settings }, { ...intended });
    if (differences.length > 0) throw new WorkbenchError('invalid-request', resumeRefusal(dir, differences));
  }
  for (const earlier of recorded) record(earlier, true);
  const resumed = progress.done;
  // The settings known only once a run has made them (./resume-settings.ts `recordedExtras`), checked on each new answer.
  const extrasBefore = recorded[0]?.producedBy ? { dir: join(outDir, recorded[0].id), extras: recordedExtras(recorded[0].producedBy) } : null;
  const batch = new AbortController();
  const stopBatch = (): void => batch.abort();
  options.signal?.addEventListener('abort', stopBatch, { once: true });
  let refusal: WorkbenchError | null = null;

  const runOne = async (question: BenchmarkQuestion): Promise<void> => {
    const dir = join(outDir, question.id);
    // A directory without a result is a run cut short: start it again from nothing.
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    const base = { id: question.id, scenario: question.scenario, technique, db, dump: question.dump, questionsFile: question.questionsFile, ...(variant !== undefined ? { variant } : {}) };
    const started = performance.now();
    progress.inFlight += 1;
    options.onStart?.(question, progress);
    let result: QuestionResult;
    try {
      const database = await databases.get(question.dumpPath, question.scenario);
      const outcome = await runQuestion({
        outDir: dir,
        connectionUri: database.connectionUri,
        question: question.text,
        questionId: question.id,
        rules: question.rules,
        technique,
        model: options.model,
        maxSteps: options.maxSteps,
        ...(options.contextTokens ? { contextTokens: options.contextTokens } : {}),
        ...(options.playbook !== undefined ? { playbook: options.playbook } : {}),
        ...(options.playbookVersion !== undefined ? { playbookVersion: options.playbookVersion } : {}),
        ...(options.techniqueOptions ? { techniqueOptions: options.techniqueOptions } : {}),
        ...(options.fidelity ? { fidelity: options.fidelity } : {}),
        signal: batch.signal,
      });
      // A run stopped by the batch's stop is not decided: a resume runs it again.
      if (batch.signal.aborted) return;
      result = judgeRun({
        base,
        annotation: question.annotation,
        scenarioQuestion: question.scenarioQuestion,
        prepared: database.prepared,
        outcome,
        facts: readRunFacts(join(dir, 'run-log.jsonl')),
      });
    } catch (error) {
      if (batch.signal.aborted) return;
      result = failedQuestion(base, question.annotation, messageOf(error), performance.now() - started);
    } finally {
      progress.inFlight -= 1;
    }
    if (extrasBefore && result.producedBy) {
      const differences = settingDifferences(extrasBefore.extras, recordedExtras(result.producedBy));
      if (differences.length > 0) {
        // Not recorded: the question stays undecided, and the batch stops before mixing more.
        refusal ??= new WorkbenchError('invalid-request', resumeRefusal(extrasBefore.dir, differences));
        rmSync(dir, { recursive: true, force: true });
        batch.abort();
        return;
      }
    }
    mkdirSync(dir, { recursive: true });
    writeQuestionResult(dir, result);
    record(result, false);
  };

  try {
    await runPool(pending, options.concurrency, runOne, batch.signal);
  } finally {
    options.signal?.removeEventListener('abort', stopBatch);
  }
  if (refusal) throw refusal;
  return { results: questions.flatMap((question) => results.get(question.id) ?? []), resumed, stopped: options.signal?.aborted ?? false };
}
