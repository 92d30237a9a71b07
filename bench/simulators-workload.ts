/**
 * The workload of `npm run bench:simulators` and what its runs report, shared by the bench
 * (bench/simulators.ts, bench/like-for-like.ts) and the child processes it starts
 * (bench/reference-process.ts, bench/cli-in-process.ts). The children are bundled with esbuild
 * into plain node scripts, so this module imports nothing from src-main and nothing tsx-only.
 */
import { referenceQuestions } from './reference-simulators';
import { cpuMsSince } from './measure';

export const dumpKinds = ['rdb', 'gdb'] as const;

/** One solve: a question on one dump kind, what was decided and what the annotation says. */
export interface Decision {
  id: string;
  db: string;
  decision: string | null;
  annotation: string;
}

/** The `dwb` arguments of the whole workload, all but `--out` (each run names its own file). */
export function dqaSolveArgs(questionFiles: readonly string[]): string[] {
  return ['dqa', 'solve', ...questionFiles.flatMap((file) => ['--questions', file]), '--engine', 'simulator', '--rules', 'compat', '--db', dumpKinds.join(',')];
}

/** The workload solved by the straightforward reference, in the CLI's order (files, kinds, questions). */
export function solveWithReference(questionFiles: readonly string[]): Decision[] {
  const decisions: Decision[] = [];
  for (const file of questionFiles) {
    for (const db of dumpKinds) {
      for (const question of referenceQuestions(file, db)) decisions.push({ id: question.id, db, decision: question.decide(), annotation: question.answer });
    }
  }
  return decisions;
}

export interface TimedReferenceRun {
  wallMs: number;
  /** process.cpuUsage() delta over the run (user + system, every thread). */
  cpuMs: number;
  decisions: Decision[];
}

export function timedReferenceRun(questionFiles: readonly string[]): TimedReferenceRun {
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  const decisions = solveWithReference(questionFiles);
  const wallMs = performance.now() - started;
  return { wallMs, cpuMs: cpuMsSince(cpuStart), decisions };
}

/** stdout of bench/reference-process.ts, line 1: every run's figures and answers. */
export interface ReferenceProcessRuns {
  runs: TimedReferenceRun[];
}

/** stdout of bench/reference-process.ts, line 2 (the last): its whole process's CPU, start-up included. */
export interface ProcessCpu {
  processCpuMs: number;
}

/** One call of the CLI's runCli inside bench/cli-in-process.ts. */
export interface CliCall {
  cpuMs: number;
  wallMs: number;
  exitCode: number;
  /** Every stdout line with its newline, as the CLI process would have written them. */
  stdout: string;
  stderr: string;
  outFile: string;
}

/** stdout of bench/cli-in-process.ts: one JSON line. */
export interface CliInProcessReport {
  calls: CliCall[];
}

export function agreeingWithAnnotations(decisions: readonly Decision[]): number {
  return decisions.filter((d) => d.decision === d.annotation).length;
}

/** How many solves of `b` give the same question, kind and decision as `a` at the same position. */
export function sameDecisions(a: readonly Decision[], b: readonly Decision[]): number {
  return a.filter((d, i) => {
    const other = b[i];
    return other !== undefined && other.id === d.id && other.db === d.db && other.decision === d.decision;
  }).length;
}

/** The CLI's own count of dumps read from the dump cache and written to it (its stderr), if it printed one. */
export function dumpCacheCounts(stderr: string): { read: number; written: number } | null {
  const counts = /^dump cache .*: (\d+) read, (\d+) written/m.exec(stderr);
  return counts ? { read: Number(counts[1]), written: Number(counts[2]) } : null;
}

/** The decisions of a `--out` file (JSON lines). */
export function decisionsOfRecords(records: string): Decision[] {
  return records
    .trim()
    .split('\n')
    .map((line) => {
      const record = JSON.parse(line) as Decision;
      return { id: record.id, db: record.db, decision: record.decision, annotation: record.annotation };
    });
}
