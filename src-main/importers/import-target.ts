import { isAbsolute, resolve } from 'node:path';
import { mysqlProtocols, neo4jProtocols, postgresProtocols, trinoProtocols } from '../contract/connections';
import { WorkbenchError } from '../contract/errors';
import { parseConnectionUriWithPassword } from '../connectors/connection-uri';
import { withPassword } from '../connectors/server-url';
import type { DumpKind } from './dump-files';
import type { DumpWriter } from './dump-writer';
import { LadybugFolderWriter } from './graph/ladybug-writer';
import { Neo4jWriter } from './graph/neo4j-writer';
import { DuckdbFolderWriter } from './relational/duckdb-writer';
import { MysqlWriter } from './relational/mysql-writer';
import { PostgresWriter } from './relational/postgres-writer';
import { SqliteFolderWriter } from './relational/sqlite-writer';
import { TrinoWriter } from './relational/trino-writer';

export const targetUsage = 'sqlite:DIR, duckdb:DIR, ladybug:DIR (or kuzu:DIR), postgres://…, mysql://…, neo4j://… (bolt://…) or trino://USER@HOST:PORT/CATALOG (a writable catalog)';

/** An import target: which dumps it takes and the writer that puts them there. */
export interface ImportTarget {
  /** Relational targets take the `.sql` dumps, graph targets the `.cql` dumps. */
  accepts: DumpKind;
  /** For messages: the target without its password. */
  description: string;
  open(): DumpWriter;
}

function folder(rest: string): string {
  const path = rest.startsWith('//') ? rest.slice(2) : rest;
  if (path === '') throw new WorkbenchError('invalid-uri', 'the target names no folder (expected e.g. sqlite:DIR)');
  return isAbsolute(path) ? path : resolve(path);
}

const folderTargets: Record<string, { accepts: DumpKind; writer: (dir: string) => DumpWriter }> = {
  sqlite: { accepts: 'relational', writer: (dir) => new SqliteFolderWriter(dir) },
  duckdb: { accepts: 'relational', writer: (dir) => new DuckdbFolderWriter(dir) },
  ladybug: { accepts: 'graph', writer: (dir) => new LadybugFolderWriter(dir) },
  // The scheme from before LadybugDB took over from Kùzu; the same LadybugDB databases.
  kuzu: { accepts: 'graph', writer: (dir) => new LadybugFolderWriter(dir) },
};

/**
 * Reads `--target`: a folder for the file engines (one database file per dump inside it) or a
 * server URL, whose password (if any) is used for this import only.
 */
export function parseImportTarget(text: string): ImportTarget {
  const match = /^([a-z][a-z0-9+.-]*):(.*)$/is.exec(text.trim());
  if (!match) throw new WorkbenchError('invalid-uri', `Not an import target: "${text}" (expected ${targetUsage})`);
  const scheme = (match[1] as string).toLowerCase();
  const folderTarget = folderTargets[scheme];
  if (folderTarget) {
    const dir = folder(match[2] as string);
    return { accepts: folderTarget.accepts, description: `${scheme}:${dir}`, open: () => folderTarget.writer(dir) };
  }
  const protocol = `${scheme}:`;
  const known = [...postgresProtocols, ...mysqlProtocols, ...neo4jProtocols, ...trinoProtocols] as readonly string[];
  if (!known.includes(protocol)) throw new WorkbenchError('invalid-uri', `Unsupported import target "${scheme}:" (expected ${targetUsage})`);
  const { target, password } = parseConnectionUriWithPassword(text);
  switch (target.engine) {
    case 'postgres':
      return { accepts: 'relational', description: target.url, open: () => new PostgresWriter(withPassword(target.url, password)) };
    case 'mysql':
      return { accepts: 'relational', description: target.url, open: () => new MysqlWriter(withPassword(target.url, password)) };
    case 'neo4j':
      return {
        accepts: 'graph',
        description: target.url,
        open: () =>
          new Neo4jWriter({
            url: target.url,
            ...(target.username !== undefined ? { username: target.username } : {}),
            ...(password !== null ? { password } : {}),
            ...(target.database !== undefined ? { database: target.database } : {}),
          }),
      };
    case 'trino':
      return { accepts: 'relational', description: target.url, open: () => new TrinoWriter(target.url, password) };
    default:
      throw new WorkbenchError('invalid-uri', `Unsupported import target "${scheme}:" (expected ${targetUsage})`);
  }
}
