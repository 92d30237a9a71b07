/**
 * Child process of `npm run bench:simulators` (section 5): the built CLI called again and again
 * inside one long-lived node process, for its steady state — JIT-warm, no start-up. It loads
 * out/main/cli.js and calls its exported runCli (what bin/dwb.js runs, minus setting the exit
 * code) on the workload several times, with the dump cache the bench filled (env
 * DWB_DUMP_CACHE_DIR), each call writing its own `--out` file. bench/like-for-like.ts bundles
 * this file with esbuild and runs it with plain node (no tsx loader in the process).
 *
 * argv: <out/main/cli.js> <calls> <folder for the --out files> <dwb argument>…
 * stdout: one line, CliInProcessReport: each call's CPU (process.cpuUsage() delta) and wall
 * time, exit code, stdout and stderr, and the --out file it wrote.
 */
import { writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { CommandIo } from '../src-main/cli/command-io';
import { cpuMsSince } from './measure';
import type { CliCall, CliInProcessReport } from './simulators-workload';

type RunCli = (argv: string[], io: CommandIo) => Promise<number>;

/** The CLI bundle's own entry, loaded the way bin/dwb.js loads it. */
function loadRunCli(cliBundle: string): RunCli {
  const cli = createRequire(__filename)(cliBundle) as { runCli?: RunCli };
  if (typeof cli.runCli !== 'function') throw new Error(`${cliBundle} exports no runCli: build the CLI (npx electron-vite build)`);
  return cli.runCli;
}

/** Sinks that keep the CLI's output, each line with the newline the process would write after it. */
function capturingIo(): { io: CommandIo; stdout: () => string; stderr: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  const io: CommandIo = {
    stdout: (line) => void out.push(`${line}\n`),
    stderr: (line) => void err.push(`${line}\n`),
    write: async (text) => void out.push(text),
  };
  return { io, stdout: () => out.join(''), stderr: () => err.join('') };
}

async function timedCall(runCli: RunCli, argv: readonly string[], outFile: string): Promise<CliCall> {
  const captured = capturingIo();
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  const exitCode = await runCli([...argv, '--out', outFile], captured.io);
  const wallMs = performance.now() - started;
  return { cpuMs: cpuMsSince(cpuStart), wallMs, exitCode, stdout: captured.stdout(), stderr: captured.stderr(), outFile };
}

async function main(): Promise<void> {
  const [cliBundle, callCount, outFolder, ...argv] = process.argv.slice(2);
  const calls = Number(callCount);
  if (cliBundle === undefined || outFolder === undefined || !Number.isInteger(calls) || calls < 1 || argv.length === 0) {
    throw new Error('usage: cli-in-process <out/main/cli.js> <calls> <out folder> <dwb argument>…');
  }
  const runCli = loadRunCli(cliBundle);
  const report: CliInProcessReport = { calls: [] };
  for (let call = 0; call < calls; call += 1) report.calls.push(await timedCall(runCli, argv, join(outFolder, `call-${call}.jsonl`)));
  writeSync(1, `${JSON.stringify(report)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
