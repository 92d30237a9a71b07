/**
 * What-if on a workbench connection (a notebook cell, the model's tool): finds the database
 * file behind the connection, reads the candidates through the ordinary read-only connector
 * when the spec gives a query, and runs the sandbox on a copy of the file.
 */
import type { ConnectionTarget } from '../contract/connections';
import { WorkbenchError } from '../contract/errors';
import { WHATIF_MAX_CANDIDATES, type Candidate, type WhatIfResult, type WhatIfSpec } from '../contract/whatif';
import type { Connector } from '../connectors/connector';
import type { RunWhatIf } from '../engine/decision-run';
import { runWhatIf, type WhatIfOptions } from './run-whatif';
import type { SandboxKind } from './sandbox-kind';

export type WhatIfSupport = { supported: true; path: string; kind: SandboxKind } | { supported: false; reason: string };

const serverNames: Record<string, string> = { postgres: 'PostgreSQL', mysql: 'MySQL/MariaDB', neo4j: 'Neo4j', kuzu: 'Kùzu' };

/** Whether the sandbox can copy this connection's data: files it can copy byte for byte (SQLite, DuckDB, CSV, Parquet). */
export function whatIfSupport(target: ConnectionTarget): WhatIfSupport {
  if (target.engine === 'sqlite') return { supported: true, path: target.path, kind: { engine: 'sqlite' } };
  if (target.engine === 'duckdb') return { supported: true, path: target.path, kind: { engine: 'duckdb', format: target.format } };
  const name = serverNames[target.engine] ?? target.engine;
  return {
    supported: false,
    reason: `what-if experiments run on a throwaway copy of SQLite or DuckDB files (CSV and Parquet too); this connection is ${name}, whose data the sandbox cannot copy`,
  };
}

/** The first column of a read-only query: text or numbers, at most WHATIF_MAX_CANDIDATES of them. */
export async function candidatesFromQuery(connector: Connector, text: string, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<Candidate[]> {
  let result;
  try {
    result = await connector.query(text, { maxRows: WHATIF_MAX_CANDIDATES, timeoutMs: options.timeoutMs ?? 30_000, ...(options.signal ? { signal: options.signal } : {}) });
  } catch (error) {
    const failure = WorkbenchError.from(error);
    throw new WorkbenchError(failure.code, `candidates query: ${failure.message}`);
  }
  if (result.truncated) throw new WorkbenchError('invalid-request', `the candidates query returned more than ${WHATIF_MAX_CANDIDATES} rows`);
  if (result.rows.length === 0) throw new WorkbenchError('invalid-request', 'the candidates query returned no rows');
  return result.rows.map((row, index) => {
    const value = row[0];
    if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) return value;
    throw new WorkbenchError('invalid-request', `candidates query row ${index + 1}: expected a text or number candidate, got ${JSON.stringify(value ?? null)}`);
  });
}

export async function runWhatIfOnConnection(
  target: ConnectionTarget,
  connector: Connector,
  spec: WhatIfSpec,
  options: WhatIfOptions = {},
): Promise<WhatIfResult> {
  const support = whatIfSupport(target);
  if (!support.supported) throw new WorkbenchError('unsupported', support.reason);
  const candidates = spec.candidates ?? (await candidatesFromQuery(connector, spec.candidatesQuery ?? '', options.signal ? { signal: options.signal } : {}));
  return runWhatIf(
    { source: support.path, kind: support.kind, candidates, change: spec.change, objective: spec.objective, direction: spec.direction, tolerance: spec.tolerance, timeoutMs: spec.timeoutMs },
    options,
  );
}

/** The sandbox a decision run offers the model as `whatif`: null when turned off or when the data cannot be copied. */
export function runWhatIfFor(target: ConnectionTarget, connector: Connector, enabled: boolean): RunWhatIf | null {
  if (!enabled || !whatIfSupport(target).supported) return null;
  return { run: (spec, signal) => runWhatIfOnConnection(target, connector, spec, signal ? { signal } : {}) };
}
