/**
 * What-if on a workbench connection (a notebook cell, the model's tool, `dwb whatif`): reads
 * the candidates through the ordinary read-only connector when the spec gives a query, and runs
 * the sandbox on a copy of the data: of the database file, or of the server tables the
 * experiment names (./server-snapshot.ts).
 */
import type { ConnectionTarget } from '../contract/connections';
import { WorkbenchError } from '../contract/errors';
import { WHATIF_MAX_CANDIDATES, type Candidate, type WhatIfResult, type WhatIfSpec } from '../contract/whatif';
import type { Connector } from '../connectors/connector';
import { runWhatIfOnSource, type WhatIfOptions } from './run-whatif';
import type { SandboxKind } from './sandbox-kind';
import { fileSource } from './sandbox-source';
import { sandboxCatalogFor, serverTablesSource } from './server-snapshot';

/** A what-if sandbox on a run's data: offered to the model as `whatif`. */
export interface RunWhatIf {
  /** Where the experiment runs when that is not the database itself, for the system prompt. */
  note: string | null;
  run(spec: WhatIfSpec, signal?: AbortSignal): Promise<WhatIfResult>;
}

export type WhatIfSupport =
  | { supported: true; copies: 'file'; path: string; kind: SandboxKind; note: null }
  /** `catalog`: what the copy is called, so server-style qualified names reach it (./server-snapshot.ts). */
  | { supported: true; copies: 'server-tables'; engine: 'postgres' | 'mysql' | 'trino'; catalog: string; note: string }
  | { supported: false; reason: string };

const serverNames = { postgres: 'PostgreSQL', mysql: 'MySQL/MariaDB', trino: 'Trino' } as const;

/**
 * Whether the sandbox can copy this connection's data: files byte for byte (SQLite, DuckDB, CSV,
 * Parquet), or the named tables of a SQL server. Graphs have no SQL change to apply.
 */
export function whatIfSupport(target: ConnectionTarget): WhatIfSupport {
  switch (target.engine) {
    case 'sqlite':
      return { supported: true, copies: 'file', path: target.path, kind: { engine: 'sqlite' }, note: null };
    case 'duckdb':
      return { supported: true, copies: 'file', path: target.path, kind: { engine: 'duckdb', format: target.format }, note: null };
    case 'postgres':
    case 'mysql':
    case 'trino':
      return {
        supported: true,
        copies: 'server-tables',
        engine: target.engine,
        catalog: sandboxCatalogFor(target),
        note: `The experiment runs in DuckDB on a local copy of the tables the change and objective name (the ${serverNames[target.engine]} server is only read${target.engine === 'trino' ? '; tables of the connection\'s catalog only, named without the catalog' : ''}): write both in DuckDB SQL, which is close to PostgreSQL, naming the candidate $candidate. A candidates query runs on the server.`,
      };
    default:
      return {
        supported: false,
        reason: `what-if experiments apply a SQL change to a copy of the data, and this connection is a ${target.engine === 'neo4j' ? 'Neo4j' : 'LadybugDB'} graph, queried in Cypher`,
      };
  }
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
  const source = support.copies === 'file' ? fileSource(support.path, support.kind) : await serverTablesSource(support.engine, connector, [spec.change, spec.objective], { catalog: support.catalog });
  const trial = { candidates, change: spec.change, objective: spec.objective, direction: spec.direction, tolerance: spec.tolerance, timeoutMs: spec.timeoutMs };
  return runWhatIfOnSource(source, trial, options);
}

/** The sandbox a decision run offers the model as `whatif`: null when turned off or when the data cannot be copied. */
export function runWhatIfFor(target: ConnectionTarget, connector: Connector, enabled: boolean): RunWhatIf | null {
  const support = whatIfSupport(target);
  if (!enabled || !support.supported) return null;
  return { note: support.note, run: (spec, signal) => runWhatIfOnConnection(target, connector, spec, signal ? { signal } : {}) };
}
