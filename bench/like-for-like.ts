/**
 * Sections 4 and 5 of `npm run bench:simulators`: the CLI and the straightforward reference
 * compared like for like. Sections 1–3 time the CLI as a fresh process (node start-up and V8
 * warm-up included) against the reference run in the bench's own process (JIT-warm after its
 * first run, no start-up): an asymmetric comparison, kept as the headline. Here both sides are
 * measured the same way, each with its own ratio and verdict against the 20× goal:
 * 4. fresh process vs fresh process: the reference in a fresh node process too, its own
 *    process.cpuUsage() total (start-up included) against the CLI's cold and warm runs of
 *    section 1;
 * 5. steady state in one long-lived process: the CLI's runCli called repeatedly in one child
 *    process (dump cache warm) and the reference run repeatedly in another, each timed per
 *    call by process.cpuUsage() deltas; the later calls' median on each side.
 * Every answer of every run here is checked against the annotations and the CLI's first cold run.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { againstGoal, lastHalf, median, runNodeScript, seconds, type NodeProcessRun } from './measure';
import {
  agreeingWithAnnotations,
  decisionsOfRecords,
  dqaSolveArgs,
  dumpCacheCounts,
  sameDecisions,
  type CliCall,
  type CliInProcessReport,
  type Decision,
  type ProcessCpu,
  type ReferenceProcessRuns,
  type TimedReferenceRun,
} from './simulators-workload';

const repoRoot = resolve(__dirname, '..');
const FRESH_REFERENCE_RUNS = 3;
/** Enough calls that the second half runs code V8 has already optimized. */
const STEADY_CLI_CALLS = 8;
const STEADY_REFERENCE_RUNS = 3;

/** What sections 1–3 measured and kept for these comparisons. */
export interface CliBaseline {
  questionFiles: string[];
  /** Medians of the fresh CLI processes of section 1. */
  cold: { wall: number; cpu: number | null };
  warm: { wall: number; cpu: number | null };
  /** The first cold run's answers, stdout and `--out` bytes: what every later run must match. */
  decisions: Decision[];
  coldStdout: string;
  coldRecords: string;
  /** The dump cache section 1 left filled (its last run was warm). */
  warmCacheDir: string;
  scratch: string;
}

interface ChildScripts {
  referenceProcess: string;
  cliInProcess: string;
}

interface RunFigures {
  wallMs: number;
  cpuMs: number;
  decisions: Decision[];
}

export async function printLikeForLike(baseline: CliBaseline): Promise<void> {
  const scripts = await bundleChildScripts(join(baseline.scratch, 'children'));
  await printFreshVsFresh(scripts, baseline);
  await printSteadyState(scripts, baseline);
}

/** The child entries as plain CommonJS scripts, so their processes carry no tsx loader. */
async function bundleChildScripts(outdir: string): Promise<ChildScripts> {
  await build({
    entryPoints: { 'reference-process': join(__dirname, 'reference-process.ts'), 'cli-in-process': join(__dirname, 'cli-in-process.ts') },
    outdir,
    outExtension: { '.js': '.cjs' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: `node${process.versions.node}`,
    logLevel: 'warning',
  });
  return { referenceProcess: join(outdir, 'reference-process.cjs'), cliInProcess: join(outdir, 'cli-in-process.cjs') };
}

// 4. Fresh process vs fresh process.

async function printFreshVsFresh(scripts: ChildScripts, baseline: CliBaseline): Promise<void> {
  const runs: RunFigures[] = [];
  for (let run = 0; run < FRESH_REFERENCE_RUNS; run += 1) runs.push(await freshReferenceRun(scripts.referenceProcess, baseline.questionFiles));
  const wall = median(runs.map((r) => r.wallMs));
  const cpu = median(runs.map((r) => r.cpuMs));
  console.log(`\n4. like for like: fresh process vs fresh process (node start-up and V8 warm-up on both sides)`);
  console.log(`   reference as a fresh node process (bench/reference-process.ts bundled with esbuild, ${FRESH_REFERENCE_RUNS} runs, one solve of the workload each)`);
  console.log(`     wall incl. start-up: ${runs.map((r) => seconds(r.wallMs)).join(', ')}; median ${seconds(wall)}`);
  console.log(`     CPU (its own process.cpuUsage() total, start-up included): ${runs.map((r) => seconds(r.cpuMs)).join(', ')}; median ${seconds(cpu)}`);
  printAnswerChecks('run', runs.map((r) => r.decisions), baseline.decisions);
  for (const [label, cli] of [
    ['cold', baseline.cold],
    ['warm', baseline.warm],
  ] as const) {
    console.log(`   ${label} CLI process (section 1) vs fresh reference process: wall ${againstGoal(wall / cli.wall)}`);
    if (cli.cpu !== null) console.log(`   ${label} CLI process (section 1) vs fresh reference process: CPU ${againstGoal(cpu / cli.cpu)}`);
  }
}

async function freshReferenceRun(script: string, questionFiles: readonly string[]): Promise<RunFigures> {
  const run = await runChild(script, ['1', ...questionFiles]);
  const [runsLine, cpuLine] = run.stdout.trim().split('\n');
  const { runs } = JSON.parse(runsLine ?? '') as ReferenceProcessRuns;
  const { processCpuMs } = JSON.parse(cpuLine ?? '') as ProcessCpu;
  return { wallMs: run.wallMs, cpuMs: processCpuMs, decisions: onlyRun(runs).decisions };
}

function onlyRun(runs: readonly TimedReferenceRun[]): TimedReferenceRun {
  if (runs.length !== 1 || runs[0] === undefined) throw new Error(`a fresh reference process reported ${runs.length} runs, not 1`);
  return runs[0];
}

// 5. Steady state in one long-lived process.

async function printSteadyState(scripts: ChildScripts, baseline: CliBaseline): Promise<void> {
  const cliCalls = await steadyCliCalls(scripts.cliInProcess, baseline);
  const referenceRuns = await steadyReferenceRuns(scripts.referenceProcess, baseline.questionFiles);
  console.log(`\n5. like for like: steady state in one long-lived process (both JIT-warm, no start-up on either side)`);
  console.log(`   CLI: runCli of out/main/cli.js called ${STEADY_CLI_CALLS} times in one node process on the whole workload, dump cache warm (its batch JIT flags set, as in section 1)`);
  const cli = printSeries('call', cliCalls);
  printCliCallChecks(cliCalls, baseline);
  console.log(`   reference: ${STEADY_REFERENCE_RUNS} runs in one node process (bench/reference-process.ts, V8's defaults)`);
  const reference = printSeries('run', referenceRuns);
  printAnswerChecks('run', referenceRuns.map((r) => r.decisions), baseline.decisions);
  console.log(`   steady-state speed-up over the reference, CPU: ${againstGoal(reference.cpu / cli.cpu)}`);
  console.log(`   steady-state speed-up over the reference, wall: ${againstGoal(reference.wall / cli.wall)}`);
}

/** Prints a series of in-process runs and returns the medians of its second half. */
function printSeries(unit: string, runs: readonly RunFigures[]): { wall: number; cpu: number } {
  const counted = lastHalf(runs);
  const wall = median(counted.map((r) => r.wallMs));
  const cpu = median(counted.map((r) => r.cpuMs));
  const which = `median of the last ${counted.length} ${unit}${counted.length === 1 ? '' : 's'}`;
  console.log(`     CPU per ${unit} (process.cpuUsage() delta): ${runs.map((r) => seconds(r.cpuMs)).join(', ')}; ${which} ${seconds(cpu)}`);
  console.log(`     wall per ${unit}: ${runs.map((r) => seconds(r.wallMs)).join(', ')}; ${which} ${seconds(wall)}`);
  return { wall, cpu };
}

interface CheckedCliCall extends RunFigures {
  sameBytesAsCold: boolean;
}

async function steadyCliCalls(script: string, baseline: CliBaseline): Promise<CheckedCliCall[]> {
  const cliBundle = join(repoRoot, 'out', 'main', 'cli.js');
  const env = { ...process.env, DWB_DUMP_CACHE_DIR: baseline.warmCacheDir };
  const args = [cliBundle, String(STEADY_CLI_CALLS), baseline.scratch, ...dqaSolveArgs(baseline.questionFiles)];
  const { calls } = JSON.parse((await runChild(script, args, env)).stdout) as CliInProcessReport;
  if (calls.length !== STEADY_CLI_CALLS) throw new Error(`the in-process CLI reported ${calls.length} calls, not ${STEADY_CLI_CALLS}`);
  return calls.map((call) => checkedCliCall(call, baseline));
}

function checkedCliCall(call: CliCall, baseline: CliBaseline): CheckedCliCall {
  if (call.exitCode !== 0) throw new Error(`an in-process dwb call returned ${call.exitCode}: ${call.stderr}`);
  // Honest label: every call read every dump from the cache and parsed none.
  const cache = dumpCacheCounts(call.stderr);
  if (!(cache !== null && cache.written === 0 && cache.read > 0)) throw new Error(`an in-process call did not read every dump from the warm cache: ${JSON.stringify(cache)}`);
  const records = readFileSync(call.outFile, 'utf8');
  return { wallMs: call.wallMs, cpuMs: call.cpuMs, decisions: decisionsOfRecords(records), sameBytesAsCold: records === baseline.coldRecords && call.stdout === baseline.coldStdout };
}

function printCliCallChecks(calls: readonly CheckedCliCall[], baseline: CliBaseline): void {
  printAnswerChecks('call', calls.map((c) => c.decisions), baseline.decisions);
  console.log(`     every call prints the same stdout and --out bytes as the first cold CLI process: ${calls.every((c) => c.sameBytesAsCold) ? 'yes' : 'NO'}`);
}

async function steadyReferenceRuns(script: string, questionFiles: readonly string[]): Promise<RunFigures[]> {
  const run = await runChild(script, [String(STEADY_REFERENCE_RUNS), ...questionFiles]);
  const { runs } = JSON.parse(run.stdout.split('\n')[0] ?? '') as ReferenceProcessRuns;
  if (runs.length !== STEADY_REFERENCE_RUNS) throw new Error(`the in-process reference reported ${runs.length} runs, not ${STEADY_REFERENCE_RUNS}`);
  return runs;
}

// Shared by both sections.

async function runChild(script: string, args: readonly string[], env?: NodeJS.ProcessEnv): Promise<NodeProcessRun> {
  const run = await runNodeScript(script, args, env);
  if (run.exitCode !== 0) throw new Error(`${script} exited with ${run.exitCode}: ${run.stderr}`);
  return run;
}

/** Agreement of every run with the annotations and with the CLI's first cold run. */
function printAnswerChecks(unit: string, runs: readonly Decision[][], cliDecisions: readonly Decision[]): void {
  const total = cliDecisions.length;
  const countsText = (counts: number[]): string => (counts.every((c) => c === counts[0]) ? `${counts[0] ?? 0}/${total} in each of the ${counts.length} ${unit}s` : `${counts.join(', ')} of ${total} (by ${unit})`);
  const wrongLength = runs.filter((decisions) => decisions.length !== total).length;
  const lengthNote = wrongLength > 0 ? `; ${wrongLength} ${unit}(s) gave a different number of answers than the CLI` : '';
  console.log(`     agree with the annotations: ${countsText(runs.map(agreeingWithAnnotations))}; same decisions as the CLI: ${countsText(runs.map((decisions) => sameDecisions(cliDecisions, decisions)))}${lengthNote}`);
}
