import { basename, resolve } from 'node:path';
import { documentLimits, type RunDocument } from '../contract/documents';
import { documentName, readDocumentBytes } from '../workspace/document-store';
import { parseOptions } from './parse-options';
import { WorkbenchError, fileErrorReason } from '../contract/errors';
import type { RunEvent } from '../contract/run';
import { openConnector } from '../connectors/open-connector';
import { defaultRunLimits } from '../engine/decision-run';
import { runToDirectory, type DirectoryRunRequest } from '../engine/run-setup';
import { readPlaybookFile } from '../engine/techniques/autoplan/playbook-file';
import { readVersionFile } from '../engine/techniques/autoplan/playbook-store';
import { techniqueIds, techniqueNamed } from '../engine/techniques/registry';
import { refuseTechniqueOptions } from '../engine/techniques/technique-options';
import { requirePlaybook } from '../engine/techniques/playbook-required';
import { decidedByText } from '../contract/produced-by';
import { readTranscript } from '../llm/transcript';
import { positiveInteger, printConnectionWarnings, type CommandIo } from './command-io';
import { checkStructuredOutput, modelCliOptions, providerFromCliOptions } from './model-options';
import { ReplyProgress } from './reply-progress';
import { threadsText } from '../reports/report-format';
import { passwordFileOption, resolveApiKey, resolveDatabasePassword } from './secret-args';
import { cliTechniqueHost, techniqueCliOptions, techniqueOptionsFromCli } from './technique-flags';
import { fidelityCliOptions, fidelityFromCli } from './fidelity-options';
import { fidelityLine } from '../contract/fidelity';
import { runUsage } from './usage';
import { readBounded, readBoundedText, readLimits } from '../native/bounded-read';

export { runUsage };

/**
 * `dwb run`: one decision run without the app. Writes the notebook, the hash-chained run log
 * and the model transcript into DIR, streams progress to stderr and prints the decision as
 * the last line on stdout.
 */
export async function runRunCommand(args: string[], io: CommandIo): Promise<number> {
  const { values } = parseOptions({
    args,
    options: {
      connection: { type: 'string' },
      'question-file': { type: 'string' },
      'rules-file': { type: 'string' },
      technique: { type: 'string', default: 'planrag' },
      ...modelCliOptions,
      ...passwordFileOption,
      'max-steps': { type: 'string' },
      'max-run-tokens': { type: 'string' },
      replay: { type: 'string' },
      out: { type: 'string' },
      simulator: { type: 'string', default: 'stated' },
      whatif: { type: 'string', default: 'on' },
      country: { type: 'string' },
      home: { type: 'string' },
      goods: { type: 'string' },
      playbook: { type: 'string' },
      document: { type: 'string', multiple: true },
      ...techniqueCliOptions(),
      ...fidelityCliOptions,
    },
  });
  const required = (name: keyof typeof values): string => {
    const value = values[name];
    if (typeof value !== 'string' || value === '') throw new WorkbenchError('invalid-request', `--${name} is required: ${runUsage}`);
    return value;
  };
  const technique = required('technique');
  if (!techniqueIds().includes(technique)) {
    throw new WorkbenchError('invalid-request', `--technique must be one of ${techniqueIds().join(', ')}, got "${technique}"`);
  }
  // The technique's own options from its own flags (Pearl's --actions, DeLLMa's sizes); another technique's flags are refused.
  const techniqueOptions = techniqueOptionsFromCli(values, technique, '--technique');
  // `dwb run` is the product's run: its labelled extensions on unless --fidelity paper; the run-start line says which.
  const fidelity = fidelityFromCli(values, 'product', technique);
  const documents = readDocuments(values.document ?? [], technique);
  // What the options refer to (an action library file) is read now, before a model or a database is set up.
  refuseTechniqueOptions(techniqueNamed(technique), { question: null, options: techniqueOptions, host: cliTechniqueHost });
  const outDir = resolve(required('out'));
  const question = readText(required('question-file'), 'question');
  if (question.trim() === '') throw new WorkbenchError('invalid-request', `--question-file ${required('question-file')} holds no question: write the decision question in it`);
  const rules = values['rules-file'] ? readText(values['rules-file'], 'rules') : '';
  // The password (file, URI or DWB_DB_PASSWORD) is used for this run only, never written to the run's records.
  const { target, password } = resolveDatabasePassword(required('connection'), values['password-file']);
  const maxSteps = positiveInteger(values['max-steps'], '--max-steps') ?? defaultRunLimits.maxSteps;
  const maxRunTokens = positiveInteger(values['max-run-tokens'], '--max-run-tokens') ?? null;

  const simulatorRules = required('simulator');
  if (!['stated', 'compat', 'off'].includes(simulatorRules)) throw new WorkbenchError('invalid-request', `--simulator must be stated, compat or off, got "${simulatorRules}"`);
  const whatIfChoice = required('whatif');
  if (whatIfChoice !== 'on' && whatIfChoice !== 'off') throw new WorkbenchError('invalid-request', `--whatif must be on or off, got "${whatIfChoice}"`);
  // A replayed run needs no model; otherwise the options name a server or a local model file.
  const cliModel = values.replay ? null : await checkStructuredOutput(providerFromCliOptions(values, runUsage, resolveApiKey(values)), io);
  const model: DirectoryRunRequest['model'] = cliModel
    ? {
        provider: cliModel.provider,
        settings: cliModel.recordedSettings,
        details: cliModel.details,
        toolMode: cliModel.toolMode,
        ...(cliModel.local ? { threads: async () => (await cliModel.local!.load()).threadChoice } : {}),
      }
    : { replay: readTranscript(readText(values.replay as string, 'transcript')), toolMode: replayedToolMode(values['tool-mode']) };

  const playbook = values.playbook === undefined ? undefined : readPlaybookFile(values.playbook);
  requirePlaybook(technique, playbook, 'no --playbook given');
  // A version file's hash goes into the run log beside the text; a plain text file has none.
  const playbookVersion = values.playbook?.toLowerCase().endsWith('.json') ? readVersionFile(values.playbook).hash : undefined;
  // Opened here so that a connection's warnings (a privileged login) reach stderr first.
  const connector = await openConnector(target, password).catch(async (error: unknown) => {
    await cliModel?.local?.unload();
    throw error;
  });
  printConnectionWarnings(connector, io);
  const counts = new ModelCallCounts();
  const replies = new ReplyProgress(io.stderr);
  const controller = new AbortController();
  const interrupt = (): void => controller.abort();
  process.once('SIGINT', interrupt);
  try {
    const outcome = await runToDirectory({
      outDir,
      question,
      rules,
      technique,
      connection: { target, connector, description: required('connection').replace(/\/\/[^@/]*@/, '//') },
      model,
      simulator: {
        rules: simulatorRules as 'stated' | 'compat' | 'off',
        known: { ...(values.country ? { country: values.country } : {}), ...(values.home ? { home: values.home } : {}), ...(values.goods ? { goods: values.goods } : {}) },
      },
      whatIf: whatIfChoice === 'on',
      ...(playbook !== undefined ? { playbook } : {}),
      ...(playbookVersion !== undefined ? { playbookVersion } : {}),
      ...(techniqueOptions ? { techniqueOptions } : {}),
      host: cliTechniqueHost,
      ...(documents.length ? { documents } : {}),
      fidelity,
      limits: { maxSteps, maxTokens: maxRunTokens, contextTokens: cliModel ? await cliModel.contextTokens() : null },
      signal: controller.signal,
      onEvent: (event) => {
        counts.add(event);
        replies.event(event);
        const line = progressLine(event);
        if (line) io.stderr(line);
      },
      onToken: (text) => replies.token(text),
    });
    if (outcome.status !== 'answered') {
      io.stderr(`dwb run: ${outcome.status}: ${outcome.message ?? 'no decision'} (notebook, log and transcript written to ${outDir})`);
      return 1;
    }
    io.stdout(`decision: ${outcome.decision ?? ''}`);
    return 0;
  } finally {
    replies.stop();
    process.removeListener('SIGINT', interrupt);
    io.stderr(counts.line());
    await connector.close();
    await cliModel?.local?.unload();
  }
}

/** `--document FILE` (repeatable): plain-text or Markdown files checked as the app checks an attachment; for the techniques that read documents. */
function readDocuments(paths: readonly string[], technique: string): RunDocument[] {
  if (paths.length === 0) return [];
  if (!techniqueNamed(technique).usesDocuments) throw new WorkbenchError('invalid-request', `--document is read by --technique dellma only, not ${technique}`);
  if (paths.length > documentLimits.perNotebook) throw new WorkbenchError('invalid-request', `--document takes at most ${documentLimits.perNotebook} files, got ${paths.length}`);
  const names = new Set<string>();
  return paths.map((path) => {
    let bytes: Uint8Array;
    try {
      bytes = readBounded(path, readLimits.text);
    } catch (error) {
      throw new WorkbenchError('not-found', `Cannot read the document ${path}: ${fileErrorReason(error)}`);
    }
    const name = documentName(basename(path));
    if (names.has(name)) throw new WorkbenchError('invalid-request', `--document names two files called "${name}"`);
    names.add(name);
    return { name, text: readDocumentBytes(name, bytes) };
  });
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
    return readBoundedText(path);
  } catch (error) {
    throw new WorkbenchError('not-found', `Cannot read the ${what} file ${path}: ${fileErrorReason(error)}`);
  }
}

function progressLine(event: RunEvent): string | null {
  const clip = (text: string): string => text.replace(/\s+/g, ' ').slice(0, 160);
  switch (event.type) {
    case 'run-start':
      return `run: ${event.technique} on ${event.connection.description} with ${event.model.description}${event.model.threads ? `, threads ${threadsText(event.model.threads)}` : ''}${event.fidelity ? `\n${fidelityLine(event.fidelity)}` : ''}`;
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
    case 'tool':
      return `[step ${event.step}] ${event.tool}${event.node ? ` ${event.node}` : ''}: ${clip(event.output)}`;
    case 'model-response':
      return `[step ${event.step}] ${event.node ? `${event.node}: ` : ''}model answered in ${Math.round(event.latencyMs)} ms${event.usage ? `, ${event.usage.totalTokens} tokens` : ''}`;
    case 'decision':
      return `[step ${event.step}] decision: ${event.decision}${
        event.verification
          ? event.verification.agrees
            ? ' (simulator: optimal)'
            : ` (simulator: best is ${event.verification.best}, regret ${event.verification.regret ?? 'n/a'})`
          : ` (not checked: ${event.unchecked ?? 'no simulator checked it'})`
      }${event.origin && (event.origin.fallback || event.origin.toolAssisted) ? `; decided by ${decidedByText(event.origin)}` : ''}`;
    case 'simulation':
      return `[step ${event.step}] simulated ${event.result.candidates.length} candidates: best ${event.result.best}`;
    case 'whatif':
      return event.result
        ? `[step ${event.step}] what-if on a copy: ${event.result.rows.length} candidates, best ${String(event.result.best)} (source unchanged)`
        : `[step ${event.step}] what-if failed: ${event.error?.message ?? ''}`;
    case 'run-end':
      return `run ended: ${event.status} after ${event.steps} answered model calls, ${event.totalTokens} tokens`;
    default:
      return null;
  }
}
