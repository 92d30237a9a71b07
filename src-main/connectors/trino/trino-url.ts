import { WorkbenchError } from '../../contract/errors';

/** Where a Trino connection goes and as whom; the password (if any) travels apart. */
export interface TrinoEndpoint {
  /** `http://host:port` or, with `?ssl=true`, `https://host:port`: the coordinator's address. */
  baseUrl: string;
  user: string;
  /** The catalog unqualified names resolve in. */
  catalog: string;
  /** The schema unqualified names resolve in; the catalog's schemas are all browsed either way. */
  schema?: string;
}

export const trinoUriShape = 'trino://USER@HOST[:PORT]/CATALOG[/SCHEMA][?ssl=true]';

/**
 * Reads `trino://USER@HOST[:PORT]/CATALOG[/SCHEMA]`. Trino has no default catalog and runs every
 * query as a named user, so both are required; `?ssl=true` speaks HTTPS (Trino accepts a password
 * only over HTTPS). The default port is Trino's 8080 (8443 with TLS).
 */
export function parseTrinoUrl(text: string): TrinoEndpoint {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new WorkbenchError('invalid-uri', `Not a valid Trino URL: "${text}" (expected ${trinoUriShape})`);
  }
  if (url.protocol !== 'trino:') throw new WorkbenchError('invalid-uri', `Not a Trino URL: "${text}" (expected ${trinoUriShape})`);
  if (url.hostname === '') throw new WorkbenchError('invalid-uri', `trino:// URL has no host: "${text}"`);
  if (url.password !== '') {
    throw new WorkbenchError('invalid-uri', 'The Trino URL holds a password: give it in the password field (or --password-file), which keeps it out of the URL');
  }
  const user = decodeURIComponent(url.username);
  if (user === '') throw new WorkbenchError('invalid-uri', `The Trino URL names no user: Trino runs every query as a user (expected ${trinoUriShape})`);
  const parts = url.pathname.split('/').filter((part) => part !== '').map((part) => decodeURIComponent(part));
  const [catalog, schema, ...extra] = parts;
  if (catalog === undefined) throw new WorkbenchError('invalid-uri', `The Trino URL names no catalog (expected ${trinoUriShape})`);
  if (extra.length > 0) throw new WorkbenchError('invalid-uri', `The Trino URL has more than CATALOG/SCHEMA in its path: "${url.pathname}"`);
  const sslParam = url.searchParams.get('ssl');
  if (sslParam !== null && !['true', 'false', '1', '0'].includes(sslParam)) {
    throw new WorkbenchError('invalid-uri', `ssl=${sslParam} in the Trino URL: expected true or false`);
  }
  const ssl = sslParam === 'true' || sslParam === '1';
  const port = url.port === '' ? (ssl ? '443' : '8080') : url.port;
  return {
    baseUrl: `${ssl ? 'https' : 'http'}://${url.hostname}:${port}`,
    user,
    catalog,
    ...(schema !== undefined ? { schema } : {}),
  };
}
