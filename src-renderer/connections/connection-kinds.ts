import type { ConnectionTarget } from '../../src-main/contract';

/** What the analyst picks in the form: one entry per kind of source (CSV and Parquet open through DuckDB). */
export type ConnectionKind = 'sqlite' | 'duckdb' | 'csv' | 'parquet' | 'kuzu' | 'postgres' | 'mysql' | 'neo4j' | 'trino';

export interface KindInfo {
  id: ConnectionKind;
  label: string;
  /** Files are picked or typed as a path; servers are reached by host (or URL) with a login. */
  family: 'file' | 'server';
  /** For the desktop file picker. */
  extensions: string[];
  placeholder: string;
  defaultPort?: number;
  /** Servers reached by host: the URL that, pasted into Host, fills the fields. */
  urlShape?: string;
  /** How the workbench keeps it read-only, in a few words. */
  readOnly: string;
}

export const connectionKinds: readonly KindInfo[] = [
  { id: 'sqlite', label: 'SQLite', family: 'file', extensions: ['sqlite', 'sqlite3', 'db'], placeholder: '/path/to/data.sqlite', readOnly: 'opened read-only: SQLite itself refuses any change' },
  { id: 'duckdb', label: 'DuckDB', family: 'file', extensions: ['duckdb', 'db'], placeholder: '/path/to/data.duckdb', readOnly: 'opened read-only with external access off' },
  { id: 'csv', label: 'CSV file', family: 'file', extensions: ['csv', 'tsv'], placeholder: '/path/to/table.csv', readOnly: 'copied into a private DuckDB table; the file is only read' },
  { id: 'parquet', label: 'Parquet file', family: 'file', extensions: ['parquet'], placeholder: '/path/to/table.parquet', readOnly: 'copied into a private DuckDB table; the file is only read' },
  // The engine id stays `kuzu` (saved connections and sealed runs hold it); the engine is LadybugDB.
  { id: 'kuzu', label: 'LadybugDB (formerly Kùzu)', family: 'file', extensions: ['lbug', 'kuzu', 'kz', 'db'], placeholder: '/path/to/graph.lbug', readOnly: 'opened read-only; only queries that read run' },
  { id: 'postgres', label: 'PostgreSQL', family: 'server', extensions: [], placeholder: 'db.example.com', defaultPort: 5432, urlShape: 'postgres://USER@HOST:PORT/DATABASE', readOnly: 'read-only session and transactions' },
  { id: 'mysql', label: 'MySQL / MariaDB', family: 'server', extensions: [], placeholder: 'db.example.com', defaultPort: 3306, urlShape: 'mysql://USER@HOST:PORT/DATABASE', readOnly: 'read-only session and transactions' },
  { id: 'trino', label: 'Trino', family: 'server', extensions: [], placeholder: 'trino.example.com', defaultPort: 8080, urlShape: 'trino://USER@HOST:PORT/CATALOG/SCHEMA', readOnly: 'every query in a read-only transaction; its plan is checked first' },
  { id: 'neo4j', label: 'Neo4j', family: 'server', extensions: [], placeholder: 'neo4j://host:7687', defaultPort: 7687, readOnly: 'read sessions; every query is planned and vetted first' },
];

export function kindInfo(kind: ConnectionKind): KindInfo {
  return connectionKinds.find((info) => info.id === kind) as KindInfo;
}

export function kindOfTarget(target: ConnectionTarget): ConnectionKind {
  if (target.engine === 'duckdb') return target.format === 'duckdb' ? 'duckdb' : target.format;
  return target.engine;
}

/** What a connection points at, for tooltips and the list: a path or a URL. */
export function describeTarget(target: ConnectionTarget): string {
  if ('path' in target) return target.path;
  if (target.engine === 'neo4j') return [target.username !== undefined ? `${target.username} @ ` : '', target.url, target.database !== undefined ? ` / ${target.database}` : ''].join('');
  return target.url;
}
