import type { Connection, ConnectionTargetInput } from '../../src-main/contract';
import { kindInfo, kindOfTarget, type ConnectionKind } from './connection-kinds';

/** Everything the connection form edits, as typed. */
export interface ConnectionFormState {
  kind: ConnectionKind;
  name: string;
  /** File kinds. */
  path: string;
  /** PostgreSQL / MySQL / Trino: the parts of the URL (for Trino, `database` is `catalog[/schema]`). */
  host: string;
  port: string;
  database: string;
  user: string;
  /** Query parameters of a server URL (e.g. `?sslmode=require`), kept as they were. */
  parameters: string;
  /** Neo4j: the whole `neo4j://` or `bolt://` URL. */
  url: string;
  /** Typed password; empty means "keep the stored one" when editing. */
  password: string;
  /** Editing: remove the stored password. */
  forgetPassword: boolean;
}

export function emptyForm(kind: ConnectionKind): ConnectionFormState {
  return {
    kind,
    name: '',
    path: '',
    host: kind === 'postgres' || kind === 'mysql' || kind === 'trino' ? '127.0.0.1' : '',
    port: String(kindInfo(kind).defaultPort ?? ''),
    database: '',
    user: '',
    parameters: '',
    url: kind === 'neo4j' ? 'neo4j://127.0.0.1:7687' : '',
    password: '',
    forgetPassword: false,
  };
}

/** The form as it opens to edit a saved connection (the password itself never comes back). */
export function formFromConnection(connection: Connection): ConnectionFormState {
  const kind = kindOfTarget(connection.target);
  const form = { ...emptyForm(kind), name: connection.name };
  const target = connection.target;
  if ('path' in target) return { ...form, path: target.path };
  if (target.engine === 'neo4j') return { ...form, url: target.url, user: target.username ?? '', database: target.database ?? '' };
  return { ...formFromUrl(form, target.url), password: '' };
}

/**
 * Fills the server fields from a whole URL pasted into the host field, password included (it
 * moves to the password field and so to the secret store, never into the saved URL).
 */
export function formFromUrl(form: ConnectionFormState, text: string): ConnectionFormState {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return form;
  }
  if (form.kind === 'neo4j') {
    return {
      ...form,
      url: `${url.protocol}//${url.host}`,
      user: url.username !== '' ? decodeURIComponent(url.username) : form.user,
      password: url.password !== '' ? decodeURIComponent(url.password) : form.password,
      database: url.pathname.replace(/^\/+|\/+$/g, '') !== '' ? decodeURIComponent(url.pathname.replace(/^\/+|\/+$/g, '')) : form.database,
    };
  }
  return {
    ...form,
    host: url.hostname,
    port: url.port !== '' ? url.port : form.port,
    database: decodeURIComponent(url.pathname.replace(/^\/+/, '')),
    user: decodeURIComponent(url.username),
    password: url.password !== '' ? decodeURIComponent(url.password) : form.password,
    parameters: url.search,
  };
}

/** `what` names the field ("The host"); `whole` says it is the whole message already. */
function required(value: string, what: string, whole = false): string {
  const trimmed = value.trim();
  if (trimmed === '') throw new Error(whole ? what : `${what} is required`);
  return trimmed;
}

/** Whether a Trino form speaks HTTPS: `ssl=true` (or `1`) among its URL parameters. */
export function trinoUsesTls(form: ConnectionFormState): boolean {
  const ssl = new URLSearchParams(form.parameters).get('ssl');
  return ssl === 'true' || ssl === '1';
}

/**
 * The form with HTTPS on or off: `ssl=true` set or removed among the URL parameters, the others
 * kept as they were, so the field and a pasted `?ssl=true` are one and the same setting.
 */
export function withTrinoTls(form: ConnectionFormState, on: boolean): ConnectionFormState {
  const parameters = new URLSearchParams(form.parameters);
  if (on) parameters.set('ssl', 'true');
  else parameters.delete('ssl');
  const text = parameters.toString();
  return { ...form, parameters: text === '' ? '' : `?${text}` };
}

/** The target to save or test; throws an Error naming the missing field. */
export function targetFromForm(form: ConnectionFormState): ConnectionTargetInput {
  switch (form.kind) {
    case 'sqlite':
    case 'kuzu':
      return { engine: form.kind, path: required(form.path, 'The file path') };
    case 'duckdb':
    case 'csv':
    case 'parquet':
      return { engine: 'duckdb', format: form.kind, path: required(form.path, 'The file path') };
    case 'postgres':
    case 'mysql': {
      const scheme = form.kind === 'postgres' ? 'postgres' : 'mysql';
      const user = form.user.trim() === '' ? '' : `${encodeURIComponent(form.user.trim())}@`;
      const port = form.port.trim() === '' ? '' : `:${form.port.trim()}`;
      const database = form.database.trim() === '' ? '' : `/${encodeURIComponent(form.database.trim())}`;
      return { engine: form.kind, url: `${scheme}://${user}${required(form.host, 'The host')}${port}${database}${form.parameters}` };
    }
    case 'trino': {
      // Trino runs every query as a named user in a named catalog: both are needed.
      const user = encodeURIComponent(required(form.user, 'The user is required: Trino runs every query as a named user', true));
      const port = form.port.trim() === '' ? '' : `:${form.port.trim()}`;
      const path = required(form.database, 'The catalog is required: Trino reads unqualified table names in one (e.g. hive, or hive/sales with a schema)', true).split('/').map((part) => encodeURIComponent(part.trim())).filter((part) => part !== '').join('/');
      return { engine: 'trino', url: `trino://${user}@${required(form.host, 'The host')}${port}/${path}${form.parameters}` };
    }
    case 'neo4j':
      return {
        engine: 'neo4j',
        url: required(form.url, 'The URL'),
        ...(form.user.trim() !== '' ? { username: form.user.trim() } : {}),
        ...(form.database.trim() !== '' ? { database: form.database.trim() } : {}),
      };
  }
}

/** The password to send: absent keeps the stored one, empty removes it. */
export function passwordFromForm(form: ConnectionFormState): string | undefined {
  if (form.forgetPassword) return '';
  return form.password === '' ? undefined : form.password;
}

/** A name when the analyst gives none: the file name, or the database and host. */
export function defaultName(form: ConnectionFormState): string {
  if (kindInfo(form.kind).family === 'file') return form.path.split(/[\\/]/).pop() ?? form.path;
  if (form.kind === 'neo4j') return form.database.trim() !== '' ? `${form.database.trim()} (Neo4j)` : form.url.replace(/^\w[\w+]*:\/\//, '');
  return `${form.database.trim() || form.kind} @ ${form.host.trim()}`;
}
