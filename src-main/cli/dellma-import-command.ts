import { isAbsolute, join, resolve } from 'node:path';
import { WorkbenchError } from '../contract/errors';
import { writeAgricultureDatabase } from '../dellma-data/agriculture-example';
import { appRoot } from '../native/app-root';
import type { CommandIo } from './command-io';
import { parseOptions } from './parse-options';
import { dellmaImportUsage } from './usage';

/**
 * `dwb dellma import --problems agriculture --target sqlite:FILE`: the 2021 USDA California
 * statistics as a SQLite database (yield and price as numbers with their units), as the app's
 * example builds it. Each malformed row is printed with its line; the exit code is 0 when the
 * database was written, whatever was malformed (those rows are in its `import_problems` table).
 */
export function runDellmaImportCommand(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseOptions({
    args,
    allowPositionals: true,
    options: { problems: { type: 'string' }, target: { type: 'string' }, data: { type: 'string' } },
  });
  if (positionals.length > 0) throw new WorkbenchError('invalid-request', `unexpected argument "${positionals[0] ?? ''}": ${dellmaImportUsage}`);
  if (values.problems !== 'agriculture') {
    throw new WorkbenchError('invalid-request', values.problems === undefined ? `--problems is required: ${dellmaImportUsage}` : `--problems: only agriculture has a database to import (stocks are price series), got "${values.problems}"`);
  }
  const match = /^sqlite:(.+)$/i.exec(values.target ?? '');
  if (!match) throw new WorkbenchError('invalid-request', `--target must be sqlite:FILE, got ${values.target === undefined ? 'nothing' : `"${values.target}"`}: ${dellmaImportUsage}`);
  const file = (match[1] as string).replace(/^\/\//, '');
  const path = isAbsolute(file) ? file : resolve(file);
  const dataDir = resolve(values.data ?? join(appRoot(), 'fixtures', 'dellma', 'agriculture'));
  const outcome = writeAgricultureDatabase(dataDir, path);
  for (const problem of outcome.malformed) io.stderr(`malformed row ${problem.file}:${problem.line}: ${problem.message}: ${problem.raw}`);
  io.stdout(`created  sqlite:${outcome.path}  (${outcome.table} ${outcome.rows}, import_problems ${outcome.malformed.length})`);
  return Promise.resolve(0);
}
