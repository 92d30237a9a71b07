import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseOptions } from './parse-options';
import { WorkbenchError } from '../contract/errors';
import { readQuestionSet } from '../dqa/question-file';
import { readActionLibrary } from '../engine/techniques/pearl/library';
import { defaultMiningRounds, defaultMiningTarget, defaultShardSize, mineActions, type MiningQuestion } from '../engine/techniques/pearl/mining';
import { createOpenAiProvider } from '../llm/openai-provider';
import { parseProviderSettings } from '../llm/settings';
import { positiveInteger, type CommandIo } from './command-io';
import { apiKeyOptions, resolveApiKey } from './secret-args';
import { actionsUsage } from './usage';
import { readBoundedText } from '../native/bounded-read';

export { actionsUsage };


/**
 * `dwb actions mine`: mines a Pearl action library from DQA training questions (and their
 * business rules' formula terms) with one model; writes the library to --out and every round
 * (proposals, then each simplification with what merged into what) to the file beside it,
 * `<out>.rounds.json`, so the analyst can check the result before using it.
 */
export async function runActionsCommand(args: string[], io: CommandIo): Promise<number> {
  const [subcommand, ...rest] = args;
  if (subcommand === 'refine') return (await import('./actions-refine-command')).runActionsRefineCommand(rest, io);
  if (subcommand !== 'mine') throw new WorkbenchError('invalid-request', `${subcommand === undefined ? 'missing subcommand' : `unknown subcommand "${subcommand}"`}: ${actionsUsage}`);
  const { values, positionals } = parseOptions({
    args: rest,
    allowPositionals: true,
    options: {
      questions: { type: 'string', multiple: true },
      db: { type: 'string' },
      'base-url': { type: 'string' },
      model: { type: 'string' },
      ...apiKeyOptions,
      from: { type: 'string' },
      'shard-size': { type: 'string' },
      target: { type: 'string' },
      'max-rounds': { type: 'string' },
      out: { type: 'string' },
    },
  });
  if (positionals.length > 0) throw new WorkbenchError('invalid-request', `unexpected argument "${positionals[0] ?? ''}": ${actionsUsage}`);
  const required = (name: 'db' | 'base-url' | 'model' | 'out'): string => {
    const value = values[name];
    if (value === undefined || value === '') throw new WorkbenchError('invalid-request', `--${name} is required: ${actionsUsage}`);
    return value;
  };
  if (!values.questions?.length) throw new WorkbenchError('invalid-request', `--questions is required: ${actionsUsage}`);
  const db = required('db');
  if (db !== 'rdb' && db !== 'gdb') throw new WorkbenchError('invalid-request', `--db must be rdb or gdb, got "${db}"`);
  const out = resolve(required('out'));
  const sets = values.questions.map((path) => readQuestionSet(path));
  const scenarios = [...new Set(sets.map((set) => set.scenario))];
  if (scenarios.length !== 1) throw new WorkbenchError('invalid-request', `the question files mix scenarios (${scenarios.join(', ')}); a library is for one scenario`);
  const questions: MiningQuestion[] = sets.flatMap((set) => set.questions.map((question) => ({ id: question.id, question: question.question, rules: question.business_rules })));
  const library = values.from ? readActionLibrary(readText(values.from), values.from) : undefined;
  const provider = createOpenAiProvider(
    parseProviderSettings({ baseUrl: required('base-url'), model: required('model'), toolMode: 'text', ...apiKeyIn(resolveApiKey(values)) }),
  );
  io.stderr(`mining actions from ${questions.length} questions (${scenarios[0] ?? ''}, --db ${db}) with ${provider.description}`);
  const result = await mineActions({
    questions,
    provider,
    ...(library ? { library } : {}),
    scenario: scenarios[0] ?? 'any',
    schema: db === 'rdb' ? 'relational' : 'graph',
    shardSize: positiveInteger(values['shard-size'], '--shard-size') ?? defaultShardSize,
    target: positiveInteger(values.target, '--target') ?? defaultMiningTarget,
    maxRounds: positiveInteger(values['max-rounds'], '--max-rounds') ?? defaultMiningRounds,
    onProgress: (line) => io.stderr(line),
  });
  writeFileSync(out, `${JSON.stringify(result.library, null, 2)}\n`);
  const roundsPath = `${out.replace(/\.json$/, '')}.rounds.json`;
  writeFileSync(roundsPath, `${JSON.stringify({ format: 'decision-workbench/pearl-mining-rounds', version: 1, rounds: result.rounds }, null, 2)}\n`);
  for (const round of result.rounds) io.stdout(`round ${round.round} (${round.kind}): ${round.calls} model call${round.calls === 1 ? '' : 's'}, ${round.before} → ${round.after} actions`);
  io.stdout(`library: ${out} (${result.library.actions.length} actions); rounds: ${roundsPath}`);
  return 0;
}

function readText(path: string): string {
  if (!existsSync(path)) throw new WorkbenchError('not-found', `Cannot read ${path}: no such file (ENOENT)`);
  return readBoundedText(path);
}

function apiKeyIn(key: string | undefined): { apiKey?: string } {
  return key ? { apiKey: key } : {};
}
