/**
 * `dwb playbook train`: learns an AutoPlan playbook for one task type (the questions file's
 * scenario × --db) from batches of training questions, and writes every version (JSON, the
 * playbook as Markdown, the diff from the previous version) into --out.
 */
import { parseOptions } from './parse-options';
import { join, resolve } from 'node:path';
import { WorkbenchError } from '../contract/errors';
import { readQuestionSet } from '../dqa/question-file';
import { requireDumpFiles } from '../dqa/scenario-databases';
import { trainDqaPlaybook } from '../benchmark/playbook-training';
import { createOpenAiProvider } from '../llm/openai-provider';
import { parseProviderSettings } from '../llm/settings';
import { numberOption, positiveInteger, type CommandIo } from './command-io';
import { apiKeyOptions, resolveApiKey } from './secret-args';
import { playbookUsage } from './usage';
import { playbookStoreOf } from '../services/playbook-service';
import { defaultWorkspaceDir } from '../workspace/paths';

/**
 * `dwb playbook list|import DIR|accept HASH|reject HASH|pin HASH [--workspace W]`: the
 * workspace's playbooks from the command line, as the app's Playbooks view shows them.
 */
async function runPlaybookReview(sub: 'list' | 'import' | 'accept' | 'reject' | 'pin', args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseOptions({ args, allowPositionals: true, options: { workspace: { type: 'string' } } });
  const wanted = sub === 'list' ? 0 : 1;
  if (positionals.length !== wanted) throw new WorkbenchError('invalid-request', `dwb playbook ${sub} takes ${wanted === 0 ? 'no argument' : sub === 'import' ? 'one folder' : 'one version hash'}: ${playbookUsage}`);
  const workspaceDir = resolve(values.workspace ?? defaultWorkspaceDir());
  const store = playbookStoreOf(workspaceDir);
  const argument = positionals[0] as string;
  if (sub === 'import') {
    const { added, known } = await store.importDirectory(resolve(argument));
    io.stdout(`added ${added} version(s) to ${workspaceDir} as proposed${known > 0 ? `; ${known} were there already` : ''}`);
    return 0;
  }
  if (sub === 'accept' || sub === 'reject') {
    const summary = store.review(argument, sub);
    io.stdout(`${summary.hash} ${summary.scenario} × ${summary.db} v${summary.index}: ${summary.status}`);
    return 0;
  }
  if (sub === 'pin') {
    const task = store.pin(argument);
    io.stdout(`pinned ${task.pinned ?? ''} for ${task.scenario} × ${task.db}`);
    return 0;
  }
  const tasks = store.list();
  // An empty list says so (on stderr, so stdout stays one line per version for scripts).
  if (tasks.every((task) => task.versions.length === 0)) io.stderr(`no playbooks in ${join(workspaceDir, 'playbooks')} yet: train one (dwb playbook train) or import a training's --out folder (dwb playbook import DIR)`);
  for (const task of tasks) {
    for (const version of task.versions) {
      const flagged = version.specifics.length > 0 ? ` · NOT GENERAL: names ${version.specifics.join(', ')}` : '';
      io.stdout(`${task.scenario}-${task.db} v${String(version.index).padStart(3, '0')} ${version.hash} ${version.status}${version.pinned ? ' PINNED' : ''} · ${version.origin} · batch ${version.questionIds.join(',')}${flagged}`);
    }
  }
  return 0;
}

export const DEFAULT_TRAINING_TEMPERATURE = 0.7;
export const DEFAULT_MAX_ACTIONS = 10;

export async function runPlaybookCommand(args: string[], io: CommandIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'list' || sub === 'import' || sub === 'accept' || sub === 'reject' || sub === 'pin') return runPlaybookReview(sub, rest, io);
  if (sub !== 'train') throw new WorkbenchError('invalid-request', `unknown playbook command "${sub ?? ''}": ${playbookUsage}`);
  const { values, positionals } = parseOptions({
    args: rest,
    allowPositionals: true,
    options: {
      questions: { type: 'string' },
      db: { type: 'string', default: 'rdb' },
      batch: { type: 'string', default: '4' },
      iterations: { type: 'string' },
      split: { type: 'string' },
      'base-url': { type: 'string' },
      model: { type: 'string' },
      ...apiKeyOptions,
      temperature: { type: 'string' },
      'max-actions': { type: 'string' },
      'no-reflection': { type: 'boolean', default: false },
      'timeout-ms': { type: 'string' },
      out: { type: 'string' },
    },
  });
  if (positionals.length > 0) throw new WorkbenchError('invalid-request', `unexpected argument "${positionals[0] ?? ''}": ${playbookUsage}`);
  for (const flag of ['questions', 'base-url', 'model', 'out'] as const) {
    if (values[flag] === undefined || values[flag] === '') throw new WorkbenchError('invalid-request', `--${flag} is required: ${playbookUsage}`);
  }
  if (values.db !== 'rdb' && values.db !== 'gdb') throw new WorkbenchError('invalid-request', `--db must be rdb or gdb, got "${values.db}"`);
  const db = values.db;
  const batchSize = positiveInteger(values.batch, '--batch') as number;
  const iterations = positiveInteger(values.iterations, '--iterations');
  const maxActions = positiveInteger(values['max-actions'], '--max-actions') ?? DEFAULT_MAX_ACTIONS;
  const temperature = numberOption(values.temperature, '--temperature', 'a number from 0 to 2', (n) => n >= 0 && n <= 2) ?? DEFAULT_TRAINING_TEMPERATURE;
  if (values.split !== undefined && !/^-?\d+:(0(\.\d+)?|1(\.0+)?|\.\d+)$/.test(values.split)) throw new WorkbenchError('invalid-request', `--split must be SEED:TRAIN_FRACTION, e.g. 7:0.5, got "${values.split}"`);
  const requestTimeoutMs = positiveInteger(values['timeout-ms'], '--timeout-ms');
  const apiKey = resolveApiKey(values);
  const settings = parseProviderSettings({
    baseUrl: values['base-url'],
    model: values.model,
    toolMode: 'text',
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}),
  });
  const set = readQuestionSet(values.questions as string);
  requireDumpFiles(set.baseDir, set.questions.map((question) => (db === 'rdb' ? question.rdb : question.gdb)), db);
  const outDir = resolve(values.out as string);
  io.stderr(`training a ${set.scenario} × ${db} playbook from ${values.questions ?? ''}, batches of ${batchSize}, into ${outDir}`);
  const result = await trainDqaPlaybook({
    set,
    db,
    batchSize,
    ...(iterations !== undefined ? { iterations } : {}),
    ...(values.split !== undefined ? { split: values.split } : {}),
    model: createOpenAiProvider(settings),
    modelName: settings.model,
    temperature,
    maxActions,
    reflection: values['no-reflection'] ? 'summary-only' : 'sir',
    outDir,
    onProgress: (line) => io.stderr(line),
  });
  for (const version of result.versions) {
    const flagged = version.specifics.length > 0 ? ` · NOT GENERAL: names ${version.specifics.join(', ')}` : '';
    io.stdout(`v${String(version.index).padStart(3, '0')} ${version.hash} batch ${version.batch.questionIds.join(',')} success ${Math.round(version.successRate * 100)}% · ${version.cost.calls} calls, ${version.cost.promptTokens + version.cost.completionTokens} tokens${flagged}`);
  }
  if (result.heldOutFile !== null) io.stderr(`held out ${result.heldOut.length} question(s): ${result.heldOutFile}`);
  return 0;
}
