import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseOptions } from './parse-options';
import { WorkbenchError, fileErrorReason } from '../contract/errors';
import type { ReportBundle } from '../reports/bundle-format';
import { exportReport, reportFormats, type ReportFormat } from '../reports/export-report';
import { bundleFromFile, bundleFromRun } from '../reports/prepare-bundle';
import { formatBytes } from '../reports/report-format';
import { readRunDirectory } from '../reports/run-directory';
import { positiveInteger, type CommandIo } from './command-io';
import { cliKeyStore } from './keys-command';

import { reportUsage } from './usage';
import { readBoundedText } from '../native/bounded-read';

export { reportUsage };

/**
 * `dwb report`: a report of one run, from the folder `dwb run --out` wrote or from a JSON
 * bundle (which must verify first). With the analyst's key (`dwb keys create`) the seal is
 * signed; a sign-off is signed with it too, and must be in the name registered with the key.
 * The sign-off is sealed into the bundle before rendering, so every format shows it and the
 * JSON bundle proves it. Prints where the file went and its head.
 */
export async function runReportCommand(args: string[], io: CommandIo): Promise<number> {
  const { values } = parseOptions({
    args,
    options: {
      run: { type: 'string' },
      bundle: { type: 'string' },
      format: { type: 'string' },
      out: { type: 'string' },
      'signed-by': { type: 'string' },
      comment: { type: 'string' },
      'max-rows': { type: 'string' },
    },
  });
  const format = values.format;
  if (!format || !(reportFormats as readonly string[]).includes(format)) {
    throw new WorkbenchError('invalid-request', `--format must be one of ${reportFormats.join(', ')}${format ? `, got "${format}"` : ''}: ${reportUsage}`);
  }
  if (!values.out) throw new WorkbenchError('invalid-request', `--out is required: ${reportUsage}`);
  if ((values.run === undefined) === (values.bundle === undefined)) throw new WorkbenchError('invalid-request', `give either --run DIR or --bundle FILE: ${reportUsage}`);
  if (values.comment !== undefined && values['signed-by'] === undefined) throw new WorkbenchError('invalid-request', '--comment goes with --signed-by NAME');
  const maxTableRows = positiveInteger(values['max-rows'], '--max-rows') ?? 15;
  const signOff = values['signed-by'] !== undefined ? { name: values['signed-by'], comment: values.comment ?? '' } : null;
  const at = new Date().toISOString();
  const signer = cliKeyStore().load();

  const bundle: ReportBundle = values.run
    ? bundleFromRun(readRunDirectory(resolve(values.run)), { at, signOff, signer })
    : bundleFromFile(readBundle(resolve(values.bundle as string)), { at, signOff, signer });
  const data = await exportReport(bundle, format as ReportFormat, { maxTableRows });
  const out = resolve(values.out);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, data);
  io.stdout(`wrote ${out} (${format}, ${formatBytes(data.length)}); integrity head ${bundle.head}`);
  return 0;
}

function readBundle(path: string): string {
  try {
    return readBoundedText(path);
  } catch (error) {
    throw new WorkbenchError('not-found', `Cannot read the bundle ${path}: ${fileErrorReason(error)}`);
  }
}
