/**
 * Child process of `npm run bench:simulators` (sections 4 and 5): the straightforward reference
 * in a node process of its own, so that it can be timed like the CLI — as a fresh process,
 * start-up included, or as a long-lived one after its first runs. bench/like-for-like.ts bundles
 * this file with esbuild and runs it with plain node (no tsx loader in the process).
 *
 * argv: <runs> <questions.json>…   Solves the whole workload <runs> times in this process.
 * stdout, line 1: ReferenceProcessRuns (each run's CPU and wall time and its answers);
 * line 2, the last: ProcessCpu, this process's own process.cpuUsage() total — start-up included,
 * taken after everything else, like the CPU the CLI prints on its last stderr line.
 */
import { writeSync } from 'node:fs';
import { timedReferenceRun, type ProcessCpu, type ReferenceProcessRuns } from './simulators-workload';

function solveRepeatedly(runCount: number, questionFiles: readonly string[]): ReferenceProcessRuns {
  const runs = [];
  for (let run = 0; run < runCount; run += 1) runs.push(timedReferenceRun(questionFiles));
  return { runs };
}

function main(): void {
  const [runCount, ...questionFiles] = process.argv.slice(2);
  const runs = Number(runCount);
  if (!Number.isInteger(runs) || runs < 1 || questionFiles.length === 0) throw new Error('usage: reference-process <runs> <questions.json>…');
  // Straight to the descriptor, as the CLI writes: no process.stdout stream built for one line.
  writeSync(1, `${JSON.stringify(solveRepeatedly(runs, questionFiles))}\n`);
  const cpu = process.cpuUsage();
  const total: ProcessCpu = { processCpuMs: (cpu.user + cpu.system) / 1000 };
  writeSync(1, `${JSON.stringify(total)}\n`);
}

main();
