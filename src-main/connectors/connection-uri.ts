import type { ConnectionTarget } from '../contract/connections';
import { mysqlProtocols, neo4jProtocols, postgresProtocols, trinoProtocols } from '../contract/connection-protocols';
import { WorkbenchError } from '../contract/errors';
import type { Connector } from './connector';
import { parseTrinoUrl } from './trino/trino-url';
import { resolveUserPath } from './user-path';

export const supportedUris = [
  'sqlite:PATH',
  'duckdb:PATH',
  'csv:PATH',
  'parquet:PATH',
  'ladybug:PATH (or kuzu:PATH)',
  'postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE',
  'mysql://USER[:PASSWORD]@HOST[:PORT][/DATABASE]',
  'neo4j://[USER[:PASSWORD]@]HOST[:PORT][/DATABASE] (or bolt://)',
  'trino://USER@HOST[:PORT]/CATALOG[/SCHEMA][?ssl=true] (password by --password-file or DWB_DB_PASSWORD)',
] as const;

/** A parsed URI: the target as it would be saved, and the password the URI carried, if any. */
export interface ParsedConnectionUri {
  target: ConnectionTarget;
  /** For this process only: never stored, never part of the target. */
  password: string | null;
}

const fileSchemes: Record<string, (path: string) => ConnectionTarget> = {
  sqlite: (path) => ({ engine: 'sqlite', path }),
  duckdb: (path) => ({ engine: 'duckdb', format: 'duckdb', path }),
  csv: (path) => ({ engine: 'duckdb', format: 'csv', path }),
  parquet: (path) => ({ engine: 'duckdb', format: 'parquet', path }),
  // LadybugDB, the embedded graph engine; `kuzu:` is its scheme from before it took over from
  // Kùzu, and the engine id saved connections hold.
  ladybug: (path) => ({ engine: 'kuzu', path }),
  kuzu: (path) => ({ engine: 'kuzu', path }),
};

/**
 * Reads a connection URI as the CLI takes it (`sqlite:./data.db`, `postgres://u:p@host/db`, …)
 * into a target and the password it carried.
 */
export function parseConnectionUriWithPassword(uri: string): ParsedConnectionUri {
  const match = /^([a-z][a-z0-9+.-]*):(.*)$/is.exec(uri.trim());
  if (!match) throw new WorkbenchError('invalid-uri', `Not a connection URI: "${uri}" (expected one of: ${supportedUris.join(', ')})`);
  const scheme = (match[1] as string).toLowerCase();
  const rest = match[2] as string;
  const fileTarget = fileSchemes[scheme];
  if (fileTarget) return { target: fileTarget(filePath(scheme, rest)), password: null };
  const protocol = `${scheme}:`;
  if (isOneOf(protocol, postgresProtocols)) return serverTarget(uri, (url) => ({ engine: 'postgres', url }));
  if (isOneOf(protocol, mysqlProtocols)) return serverTarget(uri, (url) => ({ engine: 'mysql', url }));
  if (isOneOf(protocol, neo4jProtocols)) return neo4jTarget(uri);
  if (isOneOf(protocol, trinoProtocols)) return trinoTarget(uri);
  throw new WorkbenchError('invalid-uri', `Unsupported connection scheme "${scheme}:" (supported: ${supportedUris.join(', ')})`);
}

/** The target of a URI without its password (as a saved connection would hold it). */
export function parseConnectionUri(uri: string): ConnectionTarget {
  return parseConnectionUriWithPassword(uri).target;
}

/** Opens the database a URI names, with the password the URI carried (used for this open only). */
export async function openConnectionUri(uri: string): Promise<Connector> {
  const { target, password } = parseConnectionUriWithPassword(uri);
  // Loaded when a connection is opened, so that parsing a URI (every `dwb query`) loads no connector.
  const { openConnector } = await import('./open-connector');
  return openConnector(target, password);
}

function isOneOf(protocol: string, protocols: readonly string[]): boolean {
  return protocols.includes(protocol);
}

/**
 * `sqlite:rel.db`, `sqlite:/abs.db`, `sqlite:///abs.db`, `sqlite:~/home.db` and
 * `sqlite:file:///abs.db` all name a file; relative paths resolve here (see user-path.ts).
 */
function filePath(scheme: string, rest: string): string {
  const path = rest.startsWith('//') ? rest.slice(2) : rest;
  if (path === '') throw new WorkbenchError('invalid-uri', `${scheme}: URI has no file path (expected ${scheme}:PATH)`);
  return resolveUserPath(path);
}

function parseUrl(uri: string): URL {
  try {
    return new URL(uri.trim());
  } catch {
    throw new WorkbenchError('invalid-uri', `Not a valid URL: "${uri}"`);
  }
}

function serverTarget(uri: string, make: (url: string) => ConnectionTarget): ParsedConnectionUri {
  const url = parseUrl(uri);
  if (url.hostname === '') throw new WorkbenchError('invalid-uri', `${url.protocol}// URI has no host: "${uri}"`);
  const password = url.password === '' ? null : decodeURIComponent(url.password);
  url.password = '';
  return { target: make(url.toString()), password };
}

/** Neo4j's driver takes the login apart from the URL; a path names the database. */
function neo4jTarget(uri: string): ParsedConnectionUri {
  const url = parseUrl(uri);
  if (url.hostname === '') throw new WorkbenchError('invalid-uri', `${url.protocol}// URI has no host: "${uri}"`);
  const username = url.username === '' ? undefined : decodeURIComponent(url.username);
  const password = url.password === '' ? null : decodeURIComponent(url.password);
  const database = decodeURIComponent(url.pathname.replace(/^\/+|\/+$/g, ''));
  const bare = `${url.protocol}//${url.host}`;
  return {
    target: {
      engine: 'neo4j',
      url: bare,
      ...(username !== undefined ? { username } : {}),
      ...(database !== '' ? { database } : {}),
    },
    password,
  };
}

/**
 * Trino: `trino://USER@HOST[:PORT]/CATALOG[/SCHEMA]`, checked whole here (user and catalog are
 * required) so a mistyped URI fails before any connection. A password in the URI is taken apart
 * like the other servers' (the CLI refuses one typed in its arguments, see cli/secret-args.ts).
 */
function trinoTarget(uri: string): ParsedConnectionUri {
  const url = parseUrl(uri);
  const password = url.password === '' ? null : decodeURIComponent(url.password);
  url.password = '';
  const endpoint = parseTrinoUrl(url.toString());
  const path = [endpoint.catalog, ...(endpoint.schema !== undefined ? [endpoint.schema] : [])].map(encodeURIComponent).join('/');
  const ssl = endpoint.baseUrl.startsWith('https:') ? '?ssl=true' : '';
  return { target: { engine: 'trino', url: `trino://${encodeURIComponent(endpoint.user)}@${url.host}/${path}${ssl}` }, password };
}
