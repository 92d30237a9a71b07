import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseOptions } from './parse-options';
import { WorkbenchError, fileErrorReason } from '../contract/errors';
import { loadAgriculture } from '../dellma-data/agriculture';
import { benchmarkCost, runBenchmark, type BenchmarkRun, type ScoredResult } from '../dellma-data/benchmark';
import type { DellmaEnvironment } from '../dellma-data/environment';
import { loadStocks } from '../dellma-data/stocks';
import { createModelCaller } from '../engine/techniques/dellma/model-calls';
import { analystForecast, isDellmaVariant, variants, type DellmaParameters, type Variant } from '../engine/techniques/dellma/pipeline';
import { createReplayProvider } from '../llm/replay-provider';
import type { LocalModelSettings } from '../llm/local/local-settings';
import { publicSettings, type ProviderSettings } from '../llm/settings';
import { readTranscript, recordingProvider, writeTranscriptLine } from '../llm/transcript';
import type { ModelProvider } from '../llm/types';
import { appRoot } from '../native/app-root';
import { numberOption, positiveInteger, type CommandIo } from './command-io';
import { checkStructuredOutput, providerFromCliOptions, type CliModel } from './model-options';
import { apiKeyOptions, resolveApiKey } from './secret-args';
import { fidelityCliOptions, fidelityFromCli } from './fidelity-options';

import { dellmaUsage } from './usage';
import { readBoundedText } from '../native/bounded-read';
import { modelFileIdentity } from '../llm/local/model-file-hash';
import { recordedAppVersion } from '../native/version';

export { dellmaUsage };

const reAskLine = '[ext] an unusable forecast or ranking answer is re-asked once; duplicate or out-of-range ranks are dropped';

/** The extensions a run has: at paper fidelity an unusable answer is not asked again (the paper asks once). */
function extensionsAt(fidelity: 'paper' | 'product'): string[] {
  return [
    '[ext] bootstrap interval of the expected utilities (states resampled, fit kept)',
    '[ext] sensitivity: forecast moves that flip the decision (importance re-weighting, no new calls)',
    ...(fidelity === 'product' ? [reAskLine] : ['duplicate or out-of-range ranks are dropped; an unusable forecast or ranking answer is not asked again (paper fidelity)']),
    '[ext] an exact tie at the top is reported as no decision instead of taking the first-listed action',
    "[ext] Kendall τ-b between the expected utilities and the true outcomes of each problem's actions",
  ];
}

function loadEnvironment(name: string, dataDir: string): DellmaEnvironment {
  if (name === 'agriculture') return loadAgriculture(join(dataDir, 'agriculture')).environment;
  if (name === 'stocks') return loadStocks(join(dataDir, 'stocks'));
  throw new WorkbenchError('invalid-request', `--problems must be agriculture or stocks, got "${name}"`);
}

function readFileText(path: string, what: string): string {
  try {
    return readBoundedText(path);
  } catch (error) {
    throw new WorkbenchError('not-found', `Cannot read the ${what} ${path}: ${fileErrorReason(error)}`);
  }
}

/** Progress on stderr: the choice, its expected utility and interval [ext], and the nearest flip [ext]. */
function progressLine(result: ScoredResult): string {
  const head = `solved problem ${result.problem}: ${result.chosen ?? 'no decision'}`;
  if (result.error) return `${head} (${result.error})`;
  const dellma = result.dellma;
  if (!dellma?.decision) return head;
  const action = dellma.decision.action;
  const interval = dellma.interval.intervals[action];
  const flip = dellma.sensitivity[0];
  return [
    `${head}, expected utility ${(dellma.expected[action] ?? 0).toPrecision(3)}`,
    interval ? `, [ext] 95% interval ${interval.low.toPrecision(3)}–${interval.high.toPrecision(3)}, same decision in ${(100 * dellma.interval.stability).toFixed(0)}% of resamples` : '',
    flip
      ? `; [ext] nearest flip: "${flip.factor}" = "${flip.value}" from p=${flip.from.toFixed(2)} to ${flip.to.toFixed(2)} makes ${flip.newDecision} the decision`
      : '; [ext] no single forecast move flips it',
  ].join('');
}

function resultLine(result: ScoredResult): string {
  const chosen = result.chosen ?? 'none';
  const verdict = result.correct ? 'correct' : 'wrong';
  const utility = result.normalisedUtility === null ? 'n/a' : result.normalisedUtility.toFixed(3);
  const eu = result.dellma?.decision?.margin;
  const extra = [eu !== undefined && eu !== null ? `margin=${eu.toPrecision(3)}` : null, result.note ? `(${result.note})` : null].filter(Boolean).join(' ');
  return `problem ${result.problem} [${result.actions.join(', ')}]: decision=${chosen} best=${result.best} ${verdict} utility=${utility}${extra ? ` ${extra}` : ''}`;
}

/**
 * `dwb dellma solve`: the paper's agriculture or stocks benchmark with a DeLLMa variant or a
 * baseline. Stderr: the cost estimate first, then progress; stdout: one line per problem,
 * then `accuracy: N/M` and the mean normalised utility. With --out, the transcript
 * (replayable with --replay) and the run record (parameters, seeds, forecast, batches,
 * rankings, fit, expected utilities) are written there.
 */
export async function runDellmaCommand(args: string[], io: CommandIo): Promise<number> {
  const [subcommand, ...rest] = args;
  if (subcommand === 'import') return (await import('./dellma-import-command')).runDellmaImportCommand(rest, io);
  if (subcommand !== 'solve') throw new WorkbenchError('invalid-request', `${subcommand === undefined ? 'missing subcommand' : `unknown subcommand "${subcommand}"`}: ${dellmaUsage}`);
  const { values, positionals } = parseOptions({
    args: rest,
    allowPositionals: true,
    options: {
      problems: { type: 'string' },
      variant: { type: 'string', default: 'pairs' },
      'base-url': { type: 'string' },
      model: { type: 'string' },
      'model-file': { type: 'string' },
      threads: { type: 'string' },
      context: { type: 'string' },
      ...apiKeyOptions,
      replay: { type: 'string' },
      samples: { type: 'string' },
      batch: { type: 'string' },
      overlap: { type: 'string' },
      alpha: { type: 'string' },
      seed: { type: 'string' },
      limit: { type: 'string' },
      concurrency: { type: 'string' },
      data: { type: 'string' },
      forecast: { type: 'string' },
      out: { type: 'string' },
      'timeout-ms': { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      ...fidelityCliOptions,
    },
  });
  if (positionals.length > 0) throw new WorkbenchError('invalid-request', `unexpected argument "${positionals[0] ?? ''}": ${dellmaUsage}`);
  if (!values.problems) throw new WorkbenchError('invalid-request', `--problems is required: ${dellmaUsage}`);
  if (!(variants as readonly string[]).includes(values.variant)) throw new WorkbenchError('invalid-request', `--variant must be one of ${variants.join(', ')}, got "${values.variant}"`);
  const variant = values.variant as Variant;
  // The paper's benchmark, so the paper's settings unless --fidelity product.
  const fidelity = fidelityFromCli(values, 'paper');
  const extensions = extensionsAt(fidelity.fidelity);
  const environment = loadEnvironment(values.problems, resolve(values.data ?? join(appRoot(), 'fixtures', 'dellma')));
  for (const problem of environment.malformed) io.stderr(`malformed row ${problem.file}:${problem.line}: ${problem.message}: ${problem.raw}`);

  const samples = positiveInteger(values.samples, '--samples');
  const params: DellmaParameters = {
    variant,
    perAction: variant === 'naive' ? 64 : (samples ?? 64),
    naiveSamples: variant === 'naive' ? (samples ?? 50) : 50,
    batch: positiveInteger(values.batch, '--batch') ?? 32,
    overlap: numberOption(values.overlap, '--overlap', 'a number from 0 up to (not including) 1', (n) => n >= 0 && n < 1) ?? environment.defaults.overlap,
    alpha: numberOption(values.alpha, '--alpha', 'a number above 0', (n) => n > 0) ?? (isDellmaVariant(variant) ? environment.defaults.alpha[variant] : 0),
    softmaxTemperature: environment.defaults.softmaxTemperature,
    seed: numberOption(values.seed, '--seed', 'a whole number from 0 to 4294967295', (n) => Number.isInteger(n) && n >= 0 && n < 2 ** 32) ?? 0,
    bootstrapResamples: 1000,
    selfConsistency: 5,
    selfConsistencyTemperature: 0.5,
    maxRepairs: fidelity.fidelity === 'product' ? 1 : 0,
  };
  const limit = positiveInteger(values.limit, '--limit');
  const problems = environment.problems.slice(0, limit ?? environment.problems.length);
  let concurrency = positiveInteger(values.concurrency, '--concurrency') ?? 1;

  if (values.forecast !== undefined && !isDellmaVariant(variant)) throw new WorkbenchError('invalid-request', `--forecast is for the DeLLMa variants (pairs, top1, naive), not ${variant}`);
  const override = values.forecast === undefined ? undefined : analystForecast(readFileText(values.forecast, 'forecast file'), environment.factors);
  if (override) io.stderr(`[ext] using the analyst's forecast from ${values.forecast} instead of the forecast call${override.notes.length ? ` (${override.notes.join('; ')})` : ''}`);

  // Before the estimate: a refused --api-key or an unreadable key file should not look like a started run.
  const apiKey = resolveApiKey(values);
  const cost = benchmarkCost(environment, problems, params, override !== undefined);
  io.stderr(
    `cost estimate for ${problems.length} ${environment.name} problem(s) with ${variant}${isDellmaVariant(variant) ? ` (s=${variant === 'naive' ? params.naiveSamples : params.perAction}, b=${params.batch}, q=${params.overlap})` : ''}: ${cost.calls} model calls (${cost.forecastCalls} forecast, ${cost.rankingCalls} ranking, ${cost.otherCalls} other), about ${cost.promptTokens} prompt + ${cost.completionTokens} answer tokens`,
  );
  if (values['dry-run']) return 0;

  let provider: ModelProvider;
  let settings: ProviderSettings | LocalModelSettings | null = null;
  let cliModel: CliModel | null = null;
  if (values.replay) {
    if (values['model-file'] !== undefined) throw new WorkbenchError('invalid-request', '--replay and --model-file exclude each other: a replay needs no model');
    provider = createReplayProvider(readTranscript(readFileText(values.replay, 'transcript')));
    if (concurrency > 1) io.stderr('replay runs one call at a time (--concurrency 1), in the order it was recorded');
    concurrency = 1;
  } else {
    if (values['model-file'] === undefined && (!values['base-url'] || !values.model)) throw new WorkbenchError('invalid-request', `--base-url and --model are required (or --model-file for a local model, or --replay): ${dellmaUsage}`);
    // A local GGUF model (as `dwb run --model-file`) or a server; the server's JSON-schema output is checked once, here.
    cliModel = await checkStructuredOutput(
      providerFromCliOptions(
        { 'base-url': values['base-url'], model: values.model, 'model-file': values['model-file'], threads: values.threads, context: values.context, 'timeout-ms': values['timeout-ms'] },
        dellmaUsage,
        apiKey,
      ),
      io,
    );
    provider = cliModel.provider;
    settings = cliModel.recordedSettings;
    // One model process answers one call at a time: more at once would only wait.
    if (cliModel.local && concurrency > 1) {
      io.stderr('a local model answers one call at a time (--concurrency 1)');
      concurrency = 1;
    }
  }
  const outDir = values.out ? resolve(values.out) : null;
  if (outDir) {
    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(outDir, 'transcript.jsonl'), '');
    provider = recordingProvider(provider, (line) => appendFileSync(join(outDir, 'transcript.jsonl'), writeTranscriptLine(line)), settings ? { settings } : {});
  }
  for (const line of extensions) io.stderr(line);
  io.stderr(`model: ${provider.description}`);
  io.stderr(`fidelity: ${fidelity.fidelity} (temperature ${fidelity.temperature ?? 0} for the calls the paper makes at 0; self-consistency at ${params.selfConsistencyTemperature})`);

  const modelFile = settings !== null && 'modelPath' in settings ? await modelFileIdentity(settings.modelPath).catch(() => null) : null;
  const caller = createModelCaller(provider, fidelity.temperature !== undefined ? { greedyTemperature: fidelity.temperature } : {});
  const controller = new AbortController();
  const interrupt = (): void => controller.abort();
  process.once('SIGINT', interrupt);
  let run: BenchmarkRun | null = null;
  let failure: unknown = null;
  try {
    run = await runBenchmark({
      environment,
      problems,
      caller,
      modelDescription: provider.description,
      params,
      concurrency,
      forecastCache: new Map(),
      ...(override ? { forecastOverride: override } : {}),
      onResult: (result) => io.stderr(progressLine(result)),
    });
  } catch (error) {
    failure = error;
  } finally {
    process.removeListener('SIGINT', interrupt);
    await cliModel?.local?.unload();
    if (outDir) {
      const record = {
        format: 'decision-workbench/dellma-run',
        version: 1,
        environment: environment.name,
        outcomeUnit: environment.outcomeUnit,
        outcome: environment.outcome,
        parameters: params,
        problems: problems.map((problem) => problem.id),
        model: {
          description: provider.description,
          settings: settings === null ? null : 'modelPath' in settings ? settings : publicSettings(settings),
          // What produced the results (issue 25): the names the server answered with, and a local model's file by its bytes.
          served: [...new Set(caller.calls.flatMap((call) => (call.servedModel === undefined ? [] : [call.servedModel])))],
          file: modelFile,
        },
        productVersion: recordedAppVersion(),
        extensions,
        fidelity: { fidelity: fidelity.fidelity, temperature: fidelity.temperature ?? 0, temperatureFrom: fidelity.temperature !== undefined ? 'option' : 'paper', reAsks: params.maxRepairs },
        forecast: run?.forecast ?? null,
        results: run?.results ?? [],
        summary: run ? { correct: run.correct, total: run.total, meanNormalisedUtility: run.meanNormalisedUtility, meanTau: run.meanTau } : null,
        failure: failure ? WorkbenchError.from(failure).message : null,
        calls: caller.calls,
      };
      writeFileSync(join(outDir, 'run.json'), `${JSON.stringify(record, null, 1)}\n`);
    }
  }
  if (failure || !run) throw failure ?? new WorkbenchError('internal', 'the run ended without a result');
  for (const result of [...run.results].sort((a, b) => a.problem - b.problem)) io.stdout(resultLine(result));
  io.stdout(`accuracy: ${run.correct}/${run.total} (${((100 * run.correct) / Math.max(1, run.total)).toFixed(1)}%)`);
  io.stdout(`normalised utility: ${run.meanNormalisedUtility === null ? 'n/a' : `${(100 * run.meanNormalisedUtility).toFixed(1)}%`} (mean over ${run.results.filter((r) => r.normalisedUtility !== null).length} problems)`);
  if (run.tauProblems > 0) io.stdout(`kendall tau [ext]: ${(run.meanTau ?? 0).toFixed(3)} (mean over ${run.tauProblems} problems: expected utilities against the true outcomes)`);
  const calls = caller.calls;
  const tokens = calls.reduce((sum, call) => sum + (call.usage?.totalTokens ?? 0), 0);
  io.stderr(`made ${calls.length} model calls (${calls.filter((c) => c.purpose === 'dellma.forecast').length} forecast, ${calls.filter((c) => c.purpose === 'dellma.rank').length} ranking), ${tokens} tokens reported${outDir ? `; run record and transcript in ${outDir}` : ''}`);
  return 0;
}
