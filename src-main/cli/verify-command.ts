import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseOptions } from './parse-options';
import { openConnector } from '../connectors/open-connector';
import { WorkbenchError, fileErrorReason } from '../contract/errors';
import { assessSignatures, describeEntryTrust, type TrustedKey } from '../reports/bundle-signatures';
import { replayBundle } from '../reports/replay';
import { readTrustedKeys } from '../reports/trusted-keys';
import { describeFailure, verifyBundleText } from '../reports/verify-bundle';
import type { ReportBundle } from '../reports/bundle-format';
import type { CommandIo } from './command-io';
import { cliKeyStore, defaultTrustedKeysDir } from './keys-command';
import { passwordFileOption, resolveDatabasePassword } from './secret-args';

import { verifyUsage } from './usage';
import { readBoundedText } from '../native/bounded-read';

export { verifyUsage };

/**
 * `dwb verify BUNDLE.json` checks every hash of the bundle, then every signature against the
 * keys the user trusts (their own key, the keys in the config folder's `trusted-keys/`, and
 * `--trusted-keys`). It prints `verified` when the hashes hold and every seal entry is signed by
 * a trusted key registered to the name it claims, then one line per seal entry (`signed by NAME
 * (FINGERPRINT)`); otherwise `not verified: ` and why (the first event, section or signature
 * that fails; a key not trusted; no signature), then the same lines, and exits 1.
 *
 * A bundle without signatures is refused unless `--allow-unsigned`: its hashes can be
 * recomputed by anyone able to edit the file, so an edited, re-sealed bundle with its
 * signatures stripped would otherwise pass. `--allow-unsigned` accepts bundles made without a
 * signing key (before signatures, or by an analyst without one) as `verified (unsigned)`.
 * With `--replay` a bundle that verifies has its queries run again on `--connection` and each
 * result is listed as unchanged or changed since the run; any change (data drift) exits 1.
 */
export async function runVerifyCommand(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseOptions({
    args,
    allowPositionals: true,
    options: {
      replay: { type: 'boolean', default: false },
      connection: { type: 'string' },
      head: { type: 'string' },
      'trusted-keys': { type: 'string', multiple: true },
      'allow-unsigned': { type: 'boolean', default: false },
      ...passwordFileOption,
    },
  });
  if (positionals.length !== 1) throw new WorkbenchError('invalid-request', `name one bundle file: ${verifyUsage}`);
  if (values.replay && !values.connection) throw new WorkbenchError('invalid-request', `--replay needs --connection URI: ${verifyUsage}`);
  if (!values.replay && values.connection) throw new WorkbenchError('invalid-request', `--connection goes with --replay: ${verifyUsage}`);
  if (!values.connection && values['password-file'] !== undefined) throw new WorkbenchError('invalid-request', `--password-file goes with --replay --connection: ${verifyUsage}`);
  const path = resolve(positionals[0] as string);
  let text: string;
  try {
    text = readBoundedText(path);
  } catch (error) {
    throw new WorkbenchError('not-found', `Cannot read the bundle ${path}: ${fileErrorReason(error)}`);
  }

  const verdict = verifyBundleText(text, values.head === undefined ? {} : { expectedHead: values.head });
  if (!verdict.ok) {
    io.stdout(`not verified: ${describeFailure(verdict.failure)}`);
    return 1;
  }
  const judged = assessSignatures(verdict.bundle, trustedKeys(values['trusted-keys'] ?? [], io));
  const untrusted = judged.some((entry) => entry.status === 'unknown-key' || entry.status === 'name-mismatch');
  const unsigned = judged.some((entry) => entry.status === 'unsigned');
  if (untrusted) io.stdout('not verified: the hashes hold, but a seal entry is signed by a key you do not trust (see below)');
  else if (unsigned && !values['allow-unsigned']) io.stdout(`not verified: ${unsignedRefusal}`);
  else io.stdout(unsigned ? 'verified (unsigned: the hashes hold, but nothing proves who made the bundle)' : 'verified');
  const playbook = playbookOf(verdict.bundle);
  if (playbook) io.stdout(`playbook ${playbook.version ?? '(a file, no workspace version)'} · text sha256 ${playbook.sha256}`);
  for (const entry of judged) io.stdout(describeEntryTrust(entry));
  if (untrusted || (unsigned && !values['allow-unsigned'])) return 1;
  if (!values.replay) return 0;

  const { target, password } = resolveDatabasePassword(values.connection as string, values['password-file']);
  const connector = await openConnector(target, password);
  try {
    const outcome = await replayBundle(verdict.bundle, connector, target);
    const width = 'unchanged'.length + 1;
    for (const query of outcome.queries) io.stdout(`${query.status.padEnd(width)} ${query.id} (step ${query.step}): ${query.detail}`);
    io.stdout(`${'schema'.padEnd(width)} ${outcome.schema} (${outcome.fingerprintDetail.schema})`);
    io.stdout(`${'file'.padEnd(width)} ${outcome.file} (${outcome.fingerprintDetail.file})`);
    const total = outcome.queries.length;
    io.stdout(outcome.changed === 0 ? `no drift: ${total === 1 ? 'the recorded result is' : `all ${total} recorded results are`} unchanged` : `drift: ${outcome.changed} of ${total} recorded results changed since the run`);
    return outcome.changed === 0 ? 0 : 1;
  } finally {
    await connector.close();
  }
}

const unsignedRefusal =
  'the hashes hold, but the bundle is not signed, so anyone able to edit the file could have changed and re-sealed it (dwb verify --allow-unsigned accepts a bundle made without a signing key; --head checks it against a head you recorded)';

/** The playbook an AutoPlan run followed, as its run-start records it. */
function playbookOf(bundle: ReportBundle): { version: string | null; sha256: string } | null {
  const start = bundle.events.find((entry) => entry.event.type === 'run-start')?.event as { playbook?: { version: string | null; sha256: string } } | undefined;
  return start?.playbook ?? null;
}

/** The keys to trust: the user's own, those in the config folder's trusted-keys/, and those named. */
function trustedKeys(paths: string[], io: CommandIo): TrustedKey[] {
  const keys: TrustedKey[] = [];
  try {
    const own = cliKeyStore().load();
    if (own) keys.push({ name: own.name, fingerprint: own.fingerprint, source: 'your own key' });
  } catch (error) {
    io.stderr(`dwb verify: your own signing key is not used: ${error instanceof Error ? error.message : String(error)}`);
  }
  const folder = defaultTrustedKeysDir();
  if (existsSync(folder)) keys.push(...readTrustedKeys(folder));
  for (const path of paths) keys.push(...readTrustedKeys(resolve(path)));
  return keys;
}
