import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseOptions } from './parse-options';
import { WorkbenchError } from '../contract/errors';
import { publicKeyFile, userKeyStore, type AnalystKeyStore } from '../secrets/analyst-key';
import { defaultConfigDir } from '../workspace/paths';
import type { CommandIo } from './command-io';

import { keysUsage } from './usage';

export { keysUsage };

/** The CLI's signing key: `keys/` in the user's config folder (DWB_CONFIG_DIR overrides it). */
export function cliKeyStore(): AnalystKeyStore {
  return userKeyStore(defaultConfigDir());
}

/** The folder of public keys `dwb verify` trusts besides `--trusted-keys`. */
export function defaultTrustedKeysDir(): string {
  return join(defaultConfigDir(), 'trusted-keys');
}

/**
 * `dwb keys`: the analyst's Ed25519 signing key. `create` makes it, registered to a name (every
 * sign-off with it must be in that name); `show` prints the name, fingerprint and where the
 * private key is; `export` writes the public key file colleagues pass to `dwb verify --trusted-keys`.
 */
export async function runKeysCommand(args: string[], io: CommandIo): Promise<number> {
  const [action, ...rest] = args;
  const { values } = parseOptions({ args: rest, options: { name: { type: 'string' }, out: { type: 'string' } } });
  const store = cliKeyStore();
  switch (action) {
    case 'create': {
      if (values.name === undefined) throw new WorkbenchError('invalid-request', `--name is required: ${keysUsage}`);
      const signer = store.create(values.name);
      io.stdout(`created a signing key for ${signer.name} (${signer.fingerprint}); private key in ${store.location}`);
      return 0;
    }
    case 'show': {
      const signer = store.load();
      if (!signer) throw new WorkbenchError('not-found', `No signing key in ${store.location}: create one with dwb keys create --name NAME`);
      io.stdout(`${signer.name} (${signer.fingerprint}); private key in ${store.location}`);
      return 0;
    }
    case 'export': {
      const signer = store.load();
      if (!signer) throw new WorkbenchError('not-found', `No signing key in ${store.location}: create one with dwb keys create --name NAME`);
      const text = `${JSON.stringify(publicKeyFile(signer), null, 2)}\n`;
      if (values.out === undefined) {
        io.stdout(text.trimEnd());
      } else {
        const out = resolve(values.out);
        mkdirSync(dirname(out), { recursive: true });
        writeFileSync(out, text);
        io.stdout(`wrote the public key of ${signer.name} (${signer.fingerprint}) to ${out}`);
      }
      return 0;
    }
    default:
      throw new WorkbenchError('invalid-request', `${action === undefined ? 'name an action' : `unknown action "${action}"`}: ${keysUsage}`);
  }
}
