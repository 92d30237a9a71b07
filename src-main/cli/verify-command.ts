import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parseConnectionUriWithPassword } from '../connectors/connection-uri';
import { openConnector } from '../connectors/open-connector';
import { WorkbenchError } from '../contract/errors';
import { replayBundle } from '../reports/replay';
import { describeFailure, verifyBundleText } from '../reports/verify-bundle';
import type { CommandIo } from './command-io';

import { verifyUsage } from './usage';

export { verifyUsage };

/**
 * `dwb verify BUNDLE.json` prints exactly `verified` (exit 0), or `not verified: ` and the
 * first event or section that fails, with its index, type and why (exit 1). With `--replay` a
 * verified bundle's queries are run again on `--connection` and each result is listed as
 * unchanged or changed since the run; any change (data drift) exits 1.
 */
export async function runVerifyCommand(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { replay: { type: 'boolean', default: false }, connection: { type: 'string' }, head: { type: 'string' } },
  });
  if (positionals.length !== 1) throw new WorkbenchError('invalid-request', `name one bundle file: ${verifyUsage}`);
  if (values.replay && !values.connection) throw new WorkbenchError('invalid-request', `--replay needs --connection URI: ${verifyUsage}`);
  if (!values.replay && values.connection) throw new WorkbenchError('invalid-request', `--connection goes with --replay: ${verifyUsage}`);
  const path = resolve(positionals[0] as string);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new WorkbenchError('not-found', `Cannot read the bundle ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }

  const verdict = verifyBundleText(text, values.head === undefined ? {} : { expectedHead: values.head });
  if (!verdict.ok) {
    io.stdout(`not verified: ${describeFailure(verdict.failure)}`);
    return 1;
  }
  io.stdout('verified');
  if (!values.replay) return 0;

  const { target, password } = parseConnectionUriWithPassword(values.connection as string);
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
