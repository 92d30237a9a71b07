import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { firstIssue } from '../audit/raw-chain';
import { decodePublicKey, keyFingerprint } from '../audit/signing';
import { WorkbenchError } from '../contract/errors';
import { publicKeyFileFormat } from '../secrets/analyst-key';
import type { TrustedKey } from './bundle-signatures';
import { readBoundedText, readLimits } from '../native/bounded-read';

const publicKeyFileSchema = z.strictObject({
  format: z.literal(publicKeyFileFormat),
  version: z.literal(1),
  name: z.string().trim().min(1),
  fingerprint: z.string(),
  publicKey: z.string(),
});

/**
 * Public keys from a file `dwb keys export` wrote, or from every `.json` file in a folder of
 * them. A file that is not one, or whose fingerprint is not its key's, is refused by name:
 * a trust list must not be silently shorter than the user thinks.
 */
export function readTrustedKeys(path: string): TrustedKey[] {
  if (!existsSync(path)) throw new WorkbenchError('not-found', `No trusted keys at ${path}`);
  if (statSync(path).isDirectory()) {
    return readdirSync(path)
      .filter((name) => name.endsWith('.json'))
      .sort()
      .flatMap((name) => readTrustedKeys(join(path, name)));
  }
  let value: unknown;
  try {
    value = JSON.parse(readBoundedText(path, readLimits.secret).replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new WorkbenchError('invalid-request', `${path} is not a public key file (not JSON: ${error instanceof Error ? error.message : String(error)})`);
  }
  const parsed = publicKeyFileSchema.safeParse(value);
  if (!parsed.success) throw new WorkbenchError('invalid-request', `${path} is not a public key file written by dwb keys export: ${firstIssue(parsed.error)}`);
  const { name, fingerprint, publicKey } = parsed.data;
  if (!decodePublicKey(publicKey)) throw new WorkbenchError('invalid-request', `${path}: "publicKey" is not an Ed25519 public key`);
  if (keyFingerprint(publicKey) !== fingerprint) throw new WorkbenchError('invalid-request', `${path}: the fingerprint ${fingerprint} is not that of its key (${keyFingerprint(publicKey)})`);
  return [{ name: name.trim(), fingerprint, source: path }];
}
