import { WorkbenchError } from '../../contract/errors';

/** What a server connector accepts as its URL, for the check and its error messages. */
export interface UrlRule {
  engine: string;
  /** Accepted protocols with their colon, e.g. `postgres:`. */
  schemes: readonly string[];
  /** A complete example shown when the URL does not parse. */
  example: string;
}

/** Parses a server URL and checks its scheme, so a wrong URL fails with 'invalid-uri' before any network use. */
export function requireUrlScheme(url: string, rule: UrlRule): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new WorkbenchError('invalid-uri', `${rule.engine}: not a valid URL (expected ${rule.example})`);
  }
  if (!rule.schemes.includes(parsed.protocol)) {
    const accepted = rule.schemes.map((scheme) => `${scheme}//`).join(', ');
    throw new WorkbenchError('invalid-uri', `${rule.engine}: unsupported scheme ${parsed.protocol}//; use ${accepted}`);
  }
  return parsed;
}
