/**
 * `dwb playbook train` over DQA: AutoPlan's training loop (engine/techniques/autoplan/
 * training.ts) with each training question opened against its own imported database (the
 * benchmark's cache), the reward from the exact simulator (compat rules) and the best
 * decision and critical values as training-only reflection hints. Writes every version as
 * JSON, the playbook as Markdown and the diff from the previous version, plus the split
 * (and the held-out questions as a questions file, for `dwb dqa solve --engine autoplan`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { parseConnectionUriWithPassword } from '../connectors/connection-uri';
import { openConnector } from '../connectors/open-connector';
import type { Connector } from '../connectors/connector';
import { WorkbenchError } from '../contract/errors';
import { dialectNotes } from '../engine/dialects';
import { formatObservation } from '../engine/observation';
import { emptyResultFeedback, errorFeedback } from '../engine/query-feedback';
import { summarizeSchema } from '../engine/schema-summary';
import { batches, parseSplit, splitIds, versionMarkdown, type PlaybookVersion } from '../engine/techniques/autoplan/playbook';
import { trainPlaybook, type TrainingJob } from '../engine/techniques/autoplan/training';
import type { QuestionSet } from '../dqa/question-file';
import { solvePrepared } from '../dqa/prepared-scenario';
import type { DbKind } from '../dqa/scenario-databases';
import type { ModelProvider } from '../llm/types';
import { matchDecision } from './candidate-match';
import { criticalValues } from './critical-values';
import { benchmarkQuestions, type BenchmarkQuestion } from './run-benchmark';
import { questionDatabases } from './question-databases';

export interface PlaybookTrainingRequest {
  set: QuestionSet;
  db: DbKind;
  batchSize: number;
  iterations?: number;
  /** `SEED:TRAIN_FRACTION`; without it every question trains, in file order. */
  split?: string;
  model: ModelProvider;
  modelName: string;
  temperature: number;
  maxActions: number;
  reflection: 'sir' | 'summary-only';
  outDir: string;
  onProgress?: (line: string) => void;
  /** Told of every version once it is written (the app adds it to the workspace's playbooks). */
  onVersion?: (version: PlaybookVersion) => void;
}

export interface PlaybookTrainingResult {
  versions: PlaybookVersion[];
  train: string[];
  heldOut: string[];
  /** A questions file with the held-out questions (null when none are held out). */
  heldOutFile: string | null;
}

export const QUERY_LIMITS = { maxRows: 1000, timeoutMs: 30_000 };

function versionStem(index: number): string {
  return `v${String(index).padStart(3, '0')}`;
}

export function writeVersion(outDir: string, version: PlaybookVersion): void {
  const stem = versionStem(version.index);
  writeFileSync(join(outDir, `${stem}.json`), `${JSON.stringify(version, null, 2)}\n`);
  writeFileSync(join(outDir, `${stem}.md`), versionMarkdown(version));
  const before = version.index === 1 ? 'empty' : versionStem(version.index - 1);
  writeFileSync(join(outDir, `${stem}.diff`), createTwoFilesPatch(`${before}/playbook`, `${stem}/playbook`, version.previous ? `${version.previous}\n` : '', `${version.playbook}\n`));
}

async function openJob(question: BenchmarkQuestion, db: DbKind, databases: ReturnType<typeof questionDatabases>): Promise<TrainingJob & { close(): Promise<void> }> {
  const database = await databases.get(question.dumpPath, question.scenario);
  const simulation = solvePrepared(database.prepared, question.scenarioQuestion, 'compat');
  const candidates = simulation.candidates.map((candidate) => candidate.candidate);
  const critical = criticalValues(database.prepared, 'goods' in question.scenarioQuestion ? { goods: question.scenarioQuestion.goods } : {}, simulation.best);
  const { target, password } = parseConnectionUriWithPassword(database.connectionUri);
  const connector = await openConnector(target, password);
  try {
    const schemaSummary = summarizeSchema(await connector.schema());
    return {
      questionId: question.id,
      objective: question.text,
      rules: question.rules,
      task: { taskType: taskTypeLabel(question.scenario, db), dialectLabel: dialectNotes[connector.engine].label, schemaSummary },
      hints: { best: simulation.best, criticalValues: critical },
      specifics: { names: [...candidates, ...('country' in question.scenarioQuestion ? [question.scenarioQuestion.country] : [])], values: critical.map((value) => value.value) },
      query: (text) => observeQuery(connector, text, db),
      judge: (decision) => matchDecision(decision, candidates).matched === simulation.best,
      close: () => connector.close(),
    };
  } catch (error) {
    await connector.close();
    throw error;
  }
}

/** What a training query shows the model: the rows, or the database's error, with the database's feedback. */
export async function observeQuery(connector: Connector, text: string, db: DbKind): Promise<string> {
  try {
    const result = await connector.query(text, QUERY_LIMITS);
    const empty = result.rowCount === 0 && db === 'rdb' ? await emptyResultFeedback(text, (sql) => countRows(connector, sql)) : null;
    return `${formatObservation(result)}${empty ? `\n${empty}` : ''}`;
  } catch (error) {
    const failure = WorkbenchError.from(error);
    const feedback = errorFeedback(failure, text, await connector.schema().catch(() => null));
    return `Error: ${failure.message}${feedback ? ` ${feedback}` : ''}`;
  }
}

/** A diagnostic count for the empty-result feedback; null when it cannot be had. */
async function countRows(connector: { query: (text: string, limits: { maxRows: number; timeoutMs: number }) => Promise<{ rows: unknown[][] }> }, sql: string): Promise<number | null> {
  try {
    const value = Number((await connector.query(sql, { maxRows: 1, timeoutMs: 5000 })).rows[0]?.[0]);
    return Number.isFinite(value) ? value : null;
  } catch {
    return null;
  }
}

export function taskTypeLabel(scenario: string, db: DbKind): string {
  return `DQA ${scenario} questions on a ${db === 'rdb' ? 'relational database (SQL)' : 'graph database (Cypher)'}`;
}

export async function trainDqaPlaybook(request: PlaybookTrainingRequest): Promise<PlaybookTrainingResult> {
  const outDir = resolve(request.outDir);
  mkdirSync(outDir, { recursive: true });
  const questions = benchmarkQuestions([request.set], request.db);
  if (questions.length === 0) throw new WorkbenchError('invalid-request', `${request.set.path} holds no questions`);
  const split = request.split === undefined ? null : parseSplit(request.split);
  const { train, heldOut } = split === null ? { train: questions, heldOut: [] } : splitIds(questions, split.seed, split.fraction);
  let heldOutFile: string | null = null;
  if (heldOut.length > 0) {
    heldOutFile = join(outDir, 'held-out-questions.json');
    const held = new Set(heldOut.map((question) => question.id));
    const raw: { id: string; rdb: string; gdb: string }[] = request.set.questions;
    writeFileSync(heldOutFile, `${JSON.stringify(raw.filter((question) => held.has(question.id)).map((question) => ({ ...question, rdb: resolve(request.set.baseDir, question.rdb), gdb: resolve(request.set.baseDir, question.gdb) })), null, 2)}\n`);
  }
  writeFileSync(
    join(outDir, 'split.json'),
    `${JSON.stringify({ questionsFile: basename(request.set.path), db: request.db, split: request.split ?? null, train: train.map((q) => q.id), heldOut: heldOut.map((q) => q.id) }, null, 2)}\n`,
  );
  const byId = new Map(train.map((question) => [question.id, question]));
  const databases = questionDatabases(outDir, request.db);
  const versions = await trainPlaybook({
    model: request.model,
    modelName: request.modelName,
    taskType: { scenario: request.set.scenario, db: request.db, label: taskTypeLabel(request.set.scenario, request.db) },
    batches: batches(train.map((question) => question.id), request.batchSize, request.iterations),
    batchSize: request.batchSize,
    openJob: (id) => openJob(byId.get(id) as BenchmarkQuestion, request.db, databases),
    temperature: request.temperature,
    maxActions: request.maxActions,
    reflection: request.reflection,
    split: request.split ?? null,
    onVersion: (version) => {
      writeVersion(outDir, version);
      request.onVersion?.(version);
    },
    ...(request.onProgress ? { onProgress: request.onProgress } : {}),
  });
  return { versions, train: train.map((q) => q.id), heldOut: heldOut.map((q) => q.id), heldOutFile };
}
