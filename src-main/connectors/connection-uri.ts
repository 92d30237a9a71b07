import { isAbsolute, resolve } from 'node:path';
import type { ConnectionTarget } from '../contract/connections';
import { WorkbenchError } from '../contract/errors';

const supported = 'sqlite:PATH';

/** Reads a connection URI as the CLI takes it (e.g. `sqlite:./data.db`) into a target. */
export function parseConnectionUri(uri: string): ConnectionTarget {
  const match = /^([a-z][a-z0-9+.-]*):(.*)$/is.exec(uri.trim());
  if (!match) throw new WorkbenchError('invalid-uri', `Not a connection URI: "${uri}" (expected ${supported})`);
  const scheme = (match[1] as string).toLowerCase();
  const rest = match[2] as string;
  switch (scheme) {
    case 'sqlite': {
      const path = rest.startsWith('//') ? rest.slice(2) : rest;
      if (path === '') throw new WorkbenchError('invalid-uri', 'sqlite: URI has no file path (expected sqlite:PATH)');
      return { engine: 'sqlite', path: isAbsolute(path) ? path : resolve(path) };
    }
    default:
      throw new WorkbenchError('invalid-uri', `Unsupported connection scheme "${scheme}:" (supported: ${supported})`);
  }
}
