import { parseConnectionUriWithPassword, type ParsedConnectionUri } from '../connectors/connection-uri';
import { WorkbenchError, fileErrorReason } from '../contract/errors';
import { readBoundedText, readLimits } from '../native/bounded-read';

/**
 * Secrets the CLI needs without ever taking them in argv, where any user of the machine sees
 * them (`ps`, /proc, shell history): the model API key from `--api-key-file PATH` or
 * `DWB_API_KEY`, a database password from `--password-file PATH` or `DWB_DB_PASSWORD` (as
 * `PGPASSWORD` does for psql). `--api-key`, and a password written into `--connection` or
 * `--target` (`user:password@host`), are recognised only to be refused with where the secret
 * goes instead.
 */
export const apiKeyEnv = 'DWB_API_KEY';
export const passwordEnv = 'DWB_DB_PASSWORD';

export { apiKeyOptions, passwordFileOption } from './secret-options';

type Environment = Readonly<Record<string, string | undefined>>;

/** A secret kept in a file: the whole file, without the line break editors and `echo` add. */
function readSecretFile(path: string, flag: string): string {
  let text: string;
  try {
    text = readBoundedText(path, readLimits.secret);
  } catch (error) {
    throw new WorkbenchError('not-found', `Cannot read ${flag} ${path}: ${fileErrorReason(error)}`);
  }
  const secret = text.replace(/\r?\n$/, '');
  if (secret === '') throw new WorkbenchError('invalid-request', `${flag} ${path} is empty`);
  if (/[\r\n]/.test(secret)) throw new WorkbenchError('invalid-request', `${flag} ${path} holds more than one line; it must hold the secret alone`);
  return secret;
}

/** The model API key: `--api-key-file`, else `DWB_API_KEY`, else none; `--api-key` is refused. */
export function resolveApiKey(values: { 'api-key'?: string | undefined; 'api-key-file'?: string | undefined }, env: Environment = process.env): string | undefined {
  if (values['api-key'] !== undefined) {
    throw new WorkbenchError('invalid-request', `--api-key would put the key on the command line, where other users of this machine can read it (ps, shell history): use --api-key-file F or the environment variable ${apiKeyEnv}`);
  }
  const file = values['api-key-file'];
  if (file !== undefined) return readSecretFile(file, '--api-key-file');
  const fromEnv = env[apiKeyEnv];
  return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
}

/** Refuses a URI from argv that carries a password, naming the flag but never the password. */
function refusePasswordInArgv(flag: string, password: string | null): void {
  if (password === null) return;
  throw new WorkbenchError(
    'invalid-request',
    `${flag} holds a password (user:password@host), which puts it on the command line, where other users of this machine can read it (ps, shell history): ` +
      `give the URI without it and the password in --password-file F or the environment variable ${passwordEnv}`,
  );
}

/**
 * The database password for a connection URI given as `flag`: `--password-file`, else
 * `DWB_DB_PASSWORD`. Only server URIs take one; a URI with a password in it is refused.
 */
export function resolveDatabasePassword(uri: string, passwordFile: string | undefined, env: Environment = process.env, flag = '--connection'): ParsedConnectionUri {
  const parsed = parseConnectionUriWithPassword(uri);
  refusePasswordInArgv(flag, parsed.password);
  const isServer = !('path' in parsed.target);
  if (passwordFile !== undefined) {
    if (!isServer) throw new WorkbenchError('invalid-request', `--password-file goes with a server connection (postgres://, mysql://, neo4j://, trino://); ${parsed.target.engine} files take no password`);
    return { ...parsed, password: readSecretFile(passwordFile, '--password-file') };
  }
  const fromEnv = env[passwordEnv];
  return isServer && fromEnv !== undefined && fromEnv !== '' ? { ...parsed, password: fromEnv } : parsed;
}

/**
 * A server URI with the resolved password written in, for code that takes a URI (template)
 * rather than a target and a password. The result lives in this process only: never print it.
 */
export function uriWithPassword(uri: string, password: string | null): string {
  if (password === null) return uri;
  const match = /^([a-z][a-z0-9+.-]*:\/\/)(?:([^@/?#]*)@)?/i.exec(uri.trim());
  if (!match) return uri;
  const [prefix, scheme, userinfo] = match as unknown as [string, string, string | undefined];
  const user = (userinfo ?? '').split(':')[0] ?? '';
  return `${scheme}${user}:${encodeURIComponent(password)}@${uri.trim().slice(prefix.length)}`;
}

/**
 * For commands that hand a URI (or a `{dump}` template) on, given as `--target`: the URI with
 * the password from `--password-file` or `DWB_DB_PASSWORD` written in (in this process only). A
 * template with a password in it is refused like any URI from argv; text that is no URI is
 * returned as it is, for the caller's own parser to word the error.
 */
export function uriTemplateWithPassword(template: string, passwordFile: string | undefined, env: Environment = process.env): string {
  const probe = template.replaceAll('{dump}', 'dump');
  let written: string | null;
  try {
    written = parseConnectionUriWithPassword(probe).password;
  } catch {
    written = null;
  }
  refusePasswordInArgv('--target', written);
  if (passwordFile === undefined && !env[passwordEnv]) return template;
  const resolved = resolveDatabasePassword(probe, passwordFile, env, '--target');
  return uriWithPassword(template, resolved.password);
}
