import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { WorkbenchError } from '../contract/errors';
import type { RunEvent } from '../contract/run';
import { parseConnectionUriWithPassword } from '../connectors/connection-uri';
import { openConnector } from '../connectors/open-connector';
import { defaultRunLimits, runDecision } from '../engine/decision-run';
import { MemoryCellSink } from '../engine/memory-cell-sink';
import { createRunCellWriter } from '../engine/run-cells';
import { RunLog } from '../engine/run-log';
import { automaticGate } from '../engine/review-gate';
import { techniqueIds, type TechniqueId } from '../engine/techniques';
import type { LocalModelSettingsInput } from '../llm/local/local-settings';
import { createReplayProvider } from '../llm/replay-provider';
import type { ProviderSettingsInput } from '../llm/settings';
import { readTranscript, recordingProvider, writeTranscriptLine } from '../llm/transcript';
import type { ModelProvider } from '../llm/types';
import { canonicalJson } from '../audit/canonical-json';
import { runDetails } from '../audit/run-details';
import { simulatorFor } from '../simulators/run-simulator';
import { runWhatIfFor } from '../whatif';
import { positiveInteger, type CommandIo } from './command-io';
import { modelCliOptions, modelCliUsage, providerFromCliOptions } from './model-options';

export const runUsage = `dwb run --connection URI --question-file F [--rules-file F] --technique singlerag|iterrag|planrag|planrag-norp ${modelCliUsage} [--max-steps N] [--simulator stated|compat|off] [--whatif on|off] [--country C --home N | --goods G] [--replay TRANSCRIPT] --out DIR`;

/**
 * `dwb run`: one decision run without the app. Writes the notebook, the hash-chained run log
 * and the model transcript into DIR, streams progress to stderr and prints the decision as
 * the last line on stdout.
 */
export async function runRunCommand(args: string[], io: CommandIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      connection: { type: 'string' },
      'question-file': { type: 'string' },
      'rules-file': { type: 'string' },
      technique: { type: 'string', default: 'planrag' },
      ...modelCliOptions,
      'max-steps': { type: 'string' },
      replay: { type: 'string' },
      out: { type: 'string' },
      simulator: { type: 'string', default: 'stated' },
      whatif: { type: 'string', default: 'on' },
      country: { type: 'string' },
      home: { type: 'string' },
      goods: { type: 'string' },
    },
  });
  const required = (name: keyof typeof values): string => {
    const value = values[name];
    if (typeof value !== 'string' || value === '') throw new WorkbenchError('invalid-request', `--${name} is required: ${runUsage}`);
    return value;
  };
  const technique = required('technique');
  if (!techniqueIds.includes(technique as TechniqueId)) {
    throw new WorkbenchError('invalid-request', `--technique must be one of ${techniqueIds.join(', ')}, got "${technique}"`);
  }
  const outDir = resolve(required('out'));
  const question = readText(required('question-file'), 'question');
  const rules = values['rules-file'] ? readText(values['rules-file'], 'rules') : '';
  // A password in the URI is used for this run only, never written to the run's records.
  const { target, password } = parseConnectionUriWithPassword(required('connection'));
  const maxSteps = positiveInteger(values['max-steps'], '--max-steps') ?? defaultRunLimits.maxSteps;
  // A replayed run needs no model; otherwise the options name a server or a local model file.
  const model = values.replay ? null : providerFromCliOptions(values, runUsage);

  mkdirSync(outDir, { recursive: true });
  const transcriptPath = join(outDir, 'transcript.jsonl');
  const logPath = join(outDir, 'run-log.jsonl');
  writeFileSync(transcriptPath, '');
  writeFileSync(logPath, '');

  let provider: ModelProvider = model ? model.provider : createReplayProvider(readTranscript(readText(values.replay!, 'transcript')));
  provider = recordingProvider(provider, (line) => appendFileSync(transcriptPath, writeTranscriptLine(line)), model ? { settings: model.recordedSettings as ProviderSettingsInput | LocalModelSettingsInput } : {});
  // A replay runs in the tool mode the transcript was recorded in: text mode shows in its requests.
  const toolMode = model ? model.toolMode : replayedToolMode(values['tool-mode']);

  const simulatorRules = required('simulator');
  if (!['stated', 'compat', 'off'].includes(simulatorRules)) throw new WorkbenchError('invalid-request', `--simulator must be stated, compat or off, got "${simulatorRules}"`);
  const whatIfChoice = required('whatif');
  if (whatIfChoice !== 'on' && whatIfChoice !== 'off') throw new WorkbenchError('invalid-request', `--whatif must be on or off, got "${whatIfChoice}"`);
  const connector = await openConnector(target, password);
  const withDetails = await runDetails({ connector, target, settings: model?.details ?? null });
  const simulator = await simulatorFor(connector, {
    rules: simulatorRules as 'stated' | 'compat' | 'off',
    known: { ...(values.country ? { country: values.country } : {}), ...(values.home ? { home: values.home } : {}), ...(values.goods ? { goods: values.goods } : {}) },
  });
  const whatIf = runWhatIfFor(target, connector, whatIfChoice === 'on');
  const runId = `run-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  const log = new RunLog(runId);
  const sink = new MemoryCellSink(runId);
  log.onEntry(createRunCellWriter(sink, { runId, connectionId: null, afterCellId: null }));
  log.onEntry((entry) => appendFileSync(logPath, `${canonicalJson(entry)}\n`));
  log.onEntry(({ event }) => {
    const line = progressLine(event);
    if (line) io.stderr(line);
  });
  const counts = new ModelCallCounts();
  log.onEntry(({ event }) => counts.add(event));

  const controller = new AbortController();
  const interrupt = (): void => controller.abort();
  process.once('SIGINT', interrupt);
  try {
    const outcome = await runDecision({
      question,
      rules,
      technique: technique as TechniqueId,
      connector,
      connectionDescription: required('connection').replace(/\/\/[^@/]*@/, '//'),
      provider,
      toolMode,
      limits: { ...defaultRunLimits, maxSteps },
      gate: automaticGate,
      emit: (event) => log.append(withDetails(event)),
      signal: controller.signal,
      ...(simulator ? { simulator } : {}),
      ...(whatIf ? { whatIf } : {}),
    });
    writeFileSync(
      join(outDir, 'notebook.json'),
      `${JSON.stringify({ format: 'decision-workbench/notebook', version: 1, title: firstLine(question), runId, cells: sink.cells }, null, 2)}\n`,
    );
    if (outcome.status !== 'answered') {
      io.stderr(`dwb run: ${outcome.status}: ${outcome.message ?? 'no decision'} (notebook, log and transcript written to ${outDir})`);
      return 1;
    }
    io.stdout(`decision: ${outcome.decision ?? ''}`);
    return 0;
  } finally {
    process.removeListener('SIGINT', interrupt);
    io.stderr(counts.line());
    await connector.close();
    await model?.local?.unload();
  }
}

function replayedToolMode(option: string | undefined): 'tools' | 'text' {
  if (option !== undefined && !['tools', 'text', 'auto'].includes(option)) throw new WorkbenchError('invalid-request', `--tool-mode must be tools, text or auto, got "${option}"`);
  return option === 'text' ? 'text' : 'tools';
}

/**
 * The run's model use, from its events: calls made, replies the engine could not use (each
 * asked again: a `model-repair`), and the tokens the model reported.
 */
class ModelCallCounts {
  private calls = 0;
  private unusable = 0;
  private promptTokens = 0;
  private completionTokens = 0;

  add(event: RunEvent): void {
    if (event.type === 'model-request') this.calls++;
    else if (event.type === 'model-repair') this.unusable++;
    else if (event.type === 'model-response') {
      this.promptTokens += event.usage?.promptTokens ?? 0;
      this.completionTokens += event.usage?.completionTokens ?? 0;
    }
  }

  line(): string {
    return `model calls: ${this.calls}, unusable replies: ${this.unusable}, prompt tokens: ${this.promptTokens}, completion tokens: ${this.completionTokens}`;
  }
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new WorkbenchError('not-found', `Cannot read the ${what} file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

function firstLine(text: string): string {
  return (text.trim().split('\n').find((line) => line.trim() && !/^=+$/.test(line.trim())) ?? 'Decision run').slice(0, 120);
}

function progressLine(event: RunEvent): string | null {
  const clip = (text: string): string => text.replace(/\s+/g, ' ').slice(0, 160);
  switch (event.type) {
    case 'run-start':
      return `run: ${event.technique} on ${event.connection.description} with ${event.model.description}`;
    case 'plan':
      return `[step ${event.step}] plan: ${event.steps.map((step, index) => `${index + 1}. ${step}`).join(' ')}`;
    case 'replan':
      return `[step ${event.step}] re-plan (${clip(event.reason)}): ${event.steps.map((step, index) => `${index + 1}. ${step}`).join(' ')}`;
    case 'thought':
      return `[step ${event.step}] thought: ${clip(event.text)}`;
    case 'query-start':
      return `[step ${event.step}] query ${event.queryId}: ${clip(event.query)}`;
    case 'query-end':
      return event.result
        ? `[step ${event.step}] ${event.result.rowCount} rows${event.result.truncated ? ' (truncated)' : ''} in ${Math.round(event.result.elapsedMs)} ms`
        : `[step ${event.step}] query failed: ${event.error?.message ?? ''}`;
    case 'model-repair':
      return `[step ${event.step}] unusable reply (${event.problem}); asking again`;
    case 'model-response':
      return `[step ${event.step}] model answered in ${Math.round(event.latencyMs)} ms${event.usage ? `, ${event.usage.totalTokens} tokens` : ''}`;
    case 'decision':
      return `[step ${event.step}] decision: ${event.decision}${
        event.verification ? (event.verification.agrees ? ' (simulator: optimal)' : ` (simulator: best is ${event.verification.best}, regret ${event.verification.regret ?? 'n/a'})`) : ''
      }`;
    case 'simulation':
      return `[step ${event.step}] simulated ${event.result.candidates.length} candidates: best ${event.result.best}`;
    case 'whatif':
      return event.result
        ? `[step ${event.step}] what-if on a copy: ${event.result.rows.length} candidates, best ${String(event.result.best)} (source unchanged)`
        : `[step ${event.step}] what-if failed: ${event.error?.message ?? ''}`;
    case 'run-end':
      return `run ended: ${event.status} after ${event.steps} model calls, ${event.totalTokens} tokens`;
    default:
      return null;
  }
}
