/**
 * `dwb dqa solve --engine <technique>`: the technique benchmark. Runs a decision technique
 * (PlanRAG or a baseline) with a model on every question of one or more DQA question files,
 * each against its own imported dump, several questions at once; judges each decision with
 * the exact simulator and writes the results table (Markdown, JSON, HTML) into the output
 * directory. Re-running with the same directory finishes what a stopped or killed batch left.
 */
import { join, resolve } from 'node:path';
import { parseOptions } from './parse-options';
import { WorkbenchError } from '../contract/errors';
import { resolveApiKey } from './secret-args';
import { readQuestionSet } from '../dqa/question-file';
import { requireDumpFiles, type DbKind } from '../dqa/scenario-databases';
import { accuracyLines, verdictLine } from '../dqa/solve-report';
import type { QuestionVerdict } from '../dqa/solve-questions';
import { defaultWorkspaceDir } from '../workspace/paths';
import { choosePlaybook } from './playbook-choice';
import { techniqueIds, techniqueNamed } from '../engine/techniques/registry';
import { techniqueFidelity } from '../engine/techniques/technique-extensions';
import { requirePlaybook } from '../engine/techniques/playbook-required';
import type { ProviderSettings } from '../contract/model';
import type { QuestionModel } from '../benchmark/run-question';
import { benchmarkQuestions, runBenchmark, type BenchmarkProgress } from '../benchmark/run-benchmark';
import type { QuestionResult } from '../benchmark/question-result';
import { RESULT_FILES, writeResultFiles } from '../benchmark/results-files';
import { positiveInteger, type CommandIo } from './command-io';
import { checkStructuredOutput, modelCliOptions, providerFromCliOptions } from './model-options';
import { dqaTechniqueUsage } from './usage';
import { techniqueCliOptions, techniqueOptionsFromCli } from './technique-flags';
import { fidelityCliOptions, fidelityFromCli } from './fidelity-options';
import { fidelityLine, resolveFidelity } from '../contract/fidelity';

export { dqaTechniqueUsage };


export const DEFAULT_CONCURRENCY = 2;
export const DEFAULT_MAX_STEPS = 20;

/** Whether a `dwb dqa solve` argument list asks for a technique rather than the simulator. */
export function asksForTechnique(args: readonly string[]): boolean {
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    const value = arg === '--engine' ? args[index + 1] : arg.startsWith('--engine=') ? arg.slice('--engine='.length) : undefined;
    if (value !== undefined) return techniqueIds().includes(value);
  }
  return false;
}

/** The simulator's line format, with the technique's matched decision in place of the simulator's. */
export function techniqueVerdictLine(result: QuestionResult): string {
  const decision = result.match.matched ?? result.match.raw;
  const verdict: QuestionVerdict = {
    id: result.id,
    database: result.dump,
    via: null,
    decision: decision === null ? null : decision.replace(/\s+/g, ' '),
    tied: result.simulator?.tied ?? [],
    annotation: result.simulator?.annotation ?? '',
    agrees: result.correct,
    agreesWithTies: result.correctWithTies,
    result: null,
    error: decision === null ? (result.error ?? `${result.status ?? 'not started'}: ${result.message ?? 'no decision'}`) : null,
    solveMs: result.wallMs,
  };
  return `${verdictLine(verdict)}${deciderSuffix(result)}`;
}

/** A decision another technique made (a fallback), or one copied from a tool, said on its line. */
function deciderSuffix(result: QuestionResult): string {
  const fallback = result.decidedBy !== undefined && result.decidedBy !== result.technique;
  return `${fallback ? `  decided-by=${result.decidedBy}` : ''}${result.toolAssisted ? '  tool-assisted' : ''}`;
}

function progressLine(result: QuestionResult, resumed: boolean, progress: BenchmarkProgress): string {
  const how = resumed ? 'recorded earlier' : `${result.status ?? 'not started'} after ${result.steps} model calls`;
  const decided = result.match.matched ?? (result.match.raw === null ? 'no decision' : `"${result.match.raw.replace(/\s+/g, ' ').slice(0, 60)}" (not a candidate)`);
  const verdict = result.correct ? 'right' : result.correctWithTies ? 'tied' : `wrong${result.failure.category ? ` [${result.failure.category}]` : ''}`;
  return `[${progress.done}/${progress.total}] ${result.id} ${how}: ${decided} ${verdict} · accuracy so far ${progress.correct}/${progress.done} · ${progress.tokens} tokens · ${progress.inFlight} running`;
}

function techniqueUsesPlaybook(technique: string): boolean {
  return techniqueNamed(technique).usesPlaybook === true;
}

export async function runDqaTechniqueCommand(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseOptions({
    args,
    allowPositionals: true,
    options: {
      questions: { type: 'string', multiple: true },
      engine: { type: 'string' },
      db: { type: 'string', default: 'rdb' },
      ...modelCliOptions,
      concurrency: { type: 'string' },
      'max-steps': { type: 'string' },
      out: { type: 'string' },
      playbook: { type: 'string' },
      workspace: { type: 'string' },
      ...techniqueCliOptions(),
      ...fidelityCliOptions,
    },
  });
  if (positionals.length > 0) throw new WorkbenchError('invalid-request', `unexpected argument "${positionals[0] ?? ''}": ${dqaTechniqueUsage}`);
  const technique = values.engine ?? '';
  const files = values.questions ?? [];
  if (files.length === 0 || files.some((file) => file === '')) throw new WorkbenchError('invalid-request', `--questions is required: ${dqaTechniqueUsage}`);
  if (values.db !== 'rdb' && values.db !== 'gdb') throw new WorkbenchError('invalid-request', `--db must be rdb or gdb, got "${values.db}"`);
  const db: DbKind = values.db;
  // The technique's own options from its own flags (DeLLMa's variant and sizes); another technique's flags are refused.
  const techniqueOptions = techniqueOptionsFromCli(values, technique, '--engine');
  // The benchmark measures the techniques as their papers ran them unless told otherwise.
  const fidelity = fidelityFromCli(values, 'paper', technique);
  const local = values['model-file'] !== undefined;
  if (!local) {
    for (const flag of ['base-url', 'model'] as const) {
      if (!values[flag]) throw new WorkbenchError('invalid-request', `--${flag} is required with --engine ${technique} (or --model-file for a local model): ${dqaTechniqueUsage}`);
    }
  }
  // A local model answers one call at a time (one model process): more runs at once only wait.
  const concurrency = positiveInteger(values.concurrency, '--concurrency') ?? (local ? 1 : DEFAULT_CONCURRENCY);
  const maxSteps = positiveInteger(values['max-steps'], '--max-steps') ?? DEFAULT_MAX_STEPS;

  const sets = files.map((file) => readQuestionSet(file));
  const chosen = choosePlaybook({ technique, arg: values.playbook, workspaceDir: resolve(values.workspace ?? defaultWorkspaceDir()), scenarios: sets.map((set) => set.scenario), db });
  requirePlaybook(technique, chosen?.text, `no --playbook given and none pinned for ${sets.map((set) => set.scenario).join(', ')} × ${db}`);
  if (techniqueUsesPlaybook(technique) && chosen !== null) io.stderr(`playbook: ${chosen.source}`);
  const questions = benchmarkQuestions(sets, db);
  for (const set of sets) requireDumpFiles(set.baseDir, set.questions.map((question) => (db === 'rdb' ? question.rdb : question.gdb)), db);
  const outDir = resolve(values.out ?? `dqa-${technique}-${db}`);
  // Checked last, so a bad question file is refused before a model is set up; one model serves every question.
  // The endpoint's structured output is checked once here, for every question of the run.
  const cliModel = await checkStructuredOutput(providerFromCliOptions(values, dqaTechniqueUsage, local ? undefined : resolveApiKey(values)), io);
  const model: QuestionModel = cliModel.local
    ? {
        provider: cliModel.provider,
        settings: cliModel.recordedSettings,
        details: cliModel.details,
        toolMode: cliModel.toolMode,
        threads: async () => (await cliModel.local!.load()).threadChoice,
      }
    : { settings: cliModel.recordedSettings as ProviderSettings };
  const contextTokens = await cliModel.contextTokens();

  const controller = new AbortController();
  const stop = (): void => {
    io.stderr('stopping: runs in flight end now; re-run the same command to finish the rest');
    controller.abort();
  };
  process.once('SIGINT', stop);
  // Lines go out in question order, whatever order the runs finish in.
  const lines = new Map<string, string>();
  let printed = 0;
  const flush = (): void => {
    for (let next = questions[printed]; next !== undefined && lines.has(next.id); next = questions[printed]) {
      io.stdout(lines.get(next.id) as string);
      printed += 1;
    }
  };
  try {
    io.stderr(`solving ${questions.length} questions from ${files.join(', ')} with ${technique} on --db ${db}, ${concurrency} at a time, into ${outDir}`);
    // The benchmark offers no simulator or sandbox to the model whatever the fidelity (./run-question.ts).
    io.stderr(fidelityLine(resolveFidelity(techniqueFidelity(techniqueNamed(technique)), fidelity, ['simulate-tool', 'whatif-tool'])));
    const outcome = await runBenchmark({
      questions,
      technique,
      db,
      outDir,
      model,
      maxSteps,
      ...(contextTokens ? { contextTokens } : {}),
      concurrency,
      ...(chosen !== null ? { playbook: chosen.text } : {}),
      ...(chosen?.version ? { playbookVersion: chosen.version } : {}),
      ...(techniqueOptions ? { techniqueOptions } : {}),
      fidelity,
      signal: controller.signal,
      onResult: (result, resumed, progress) => {
        io.stderr(progressLine(result, resumed, progress));
        lines.set(result.id, techniqueVerdictLine(result));
        flush();
      },
    });
    const table = writeResultFiles(outDir);
    if (outcome.stopped) {
      io.stderr(`stopped: ${outcome.results.length} of ${questions.length} questions decided; re-run the same command to finish the rest`);
      return 1;
    }
    const correct = outcome.results.filter((result) => result.correct).length;
    const correctWithTies = outcome.results.filter((result) => result.correctWithTies).length;
    for (const line of accuracyLines({ correct, correctWithTies, total: outcome.results.length })) io.stdout(line);
    const taus = outcome.results.flatMap((result) => (typeof result.utilityTau === 'number' ? [result.utilityTau] : []));
    if (taus.length > 0) io.stdout(`kendall tau [ext]: ${(taus.reduce((sum, tau) => sum + tau, 0) / taus.length).toFixed(3)} (mean over ${taus.length} questions: expected utilities against the simulator's order)`);
    const flagged = outcome.results.filter((result) => result.flags.length > 0).length;
    if (flagged > 0) io.stderr(`${flagged} question(s) are ties or float-level decisions; the report lists them apart`);
    if (outcome.resumed > 0) io.stderr(`${outcome.resumed} question(s) were decided by an earlier run and not asked again`);
    io.stderr(`results: ${join(outDir, RESULT_FILES.markdown)}, ${join(outDir, RESULT_FILES.json)}, ${join(outDir, RESULT_FILES.html)} (${table.rows.length} rows)`);
    return 0;
  } finally {
    process.removeListener('SIGINT', stop);
    await cliModel.local?.unload();
  }
}
