/**
 * What kind of data the sandbox copies, which decides the engine that runs the experiment on
 * the copy and the files that belong to the source.
 */
import type { Candidate } from '../contract/whatif';
import { DuckdbSession } from './duckdb-session';
import { SandboxSession, type CandidateMeasure, type LabelledChange } from './sandbox-session';

export type SandboxKind = { engine: 'sqlite' } | { engine: 'duckdb'; format: 'duckdb' | 'csv' | 'parquet' };

/** Files beside the source whose content belongs to it: SQLite's WAL or hot journal, DuckDB's WAL. */
export function companionSuffixes(kind: SandboxKind): readonly string[] {
  if (kind.engine === 'sqlite') return ['-wal', '-journal'];
  return kind.format === 'duckdb' ? ['.wal'] : [];
}

/** One open experiment on a copy. */
export interface ExperimentSession {
  evaluate(candidate: Candidate): Promise<CandidateMeasure>;
  close(): void;
}

/** A session of several labelled changes, of which each scenario applies some, in order (./run-scenarios.ts). */
export interface ScenarioSession {
  evaluateSteps(steps: readonly number[], candidate: Candidate): Promise<CandidateMeasure>;
  close(): void;
}

export async function openSession(kind: SandboxKind, copyPath: string, change: string, objective: string): Promise<ExperimentSession> {
  if (kind.engine === 'duckdb') return DuckdbSession.open(copyPath, kind.format, change, objective);
  const session = SandboxSession.open(copyPath, change, objective);
  return { evaluate: async (candidate) => session.evaluate(candidate), close: () => session.close() };
}

export async function openScenarioSession(kind: SandboxKind, copyPath: string, changes: readonly LabelledChange[], objective: string): Promise<ScenarioSession> {
  if (kind.engine === 'duckdb') return DuckdbSession.openScenarios(copyPath, kind.format, changes, objective);
  const session = SandboxSession.openScenarios(copyPath, changes, objective);
  return { evaluateSteps: async (steps, candidate) => session.evaluateSteps(steps, candidate), close: () => session.close() };
}
