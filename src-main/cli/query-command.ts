import { parseArgs } from 'node:util';
import { WorkbenchError } from '../contract/errors';
import { openConnector } from '../connectors/open-connector';
import type { Connector } from '../connectors/connector';
import { defaultQuerySettings, querySettingsLimits } from '../contract/notebook';
import { formatTable } from './format-table';
import { cappedPositiveInteger, printConnectionWarnings, type CommandIo } from './command-io';
import { passwordFileOption, resolveDatabasePassword } from './secret-args';

import { queryUsage } from './usage';

export { queryUsage };

/** `dwb query`: one read-only query, rows on stdout, one line on stderr on failure. */
export async function runQueryCommand(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      connection: { type: 'string', short: 'c' },
      json: { type: 'boolean', default: false },
      'max-rows': { type: 'string' },
      'timeout-ms': { type: 'string' },
      ...passwordFileOption,
    },
  });
  if (!values.connection) throw new WorkbenchError('invalid-request', `--connection is required: ${queryUsage}`);
  if (positionals.length !== 1) throw new WorkbenchError('invalid-request', `give exactly one query: ${queryUsage}`);
  // The same caps as a notebook cell's settings (README › Data sources).
  const maxRows = cappedPositiveInteger(values['max-rows'], '--max-rows', querySettingsLimits.maxRows) ?? defaultQuerySettings.maxRows;
  const timeoutMs = cappedPositiveInteger(values['timeout-ms'], '--timeout-ms', querySettingsLimits.timeoutMs) ?? defaultQuerySettings.timeoutMs;

  // Ctrl-C or a kill (SIGTERM) cancels the query, so the connector still closes and removes
  // what it made (the temp copy behind csv:/parquet:) before the process ends.
  const stop = new AbortController();
  const cancel = (): void => stop.abort();
  process.once('SIGINT', cancel);
  process.once('SIGTERM', cancel);
  try {
    // The password (file, URI or DWB_DB_PASSWORD) is used for this process only.
    const { target, password } = resolveDatabasePassword(values.connection, values['password-file']);
    const connector = await openConnector(target, password).catch(firstLineOnly);
    try {
      printConnectionWarnings(connector, io);
      return await printQuery(connector, positionals[0] as string, { maxRows, timeoutMs, signal: stop.signal, json: values.json === true }, io);
    } finally {
      await connector.close();
    }
  } finally {
    process.removeListener('SIGINT', cancel);
    process.removeListener('SIGTERM', cancel);
  }
}

/** Runs the query and prints its rows (a table, or JSON lines), the count on stderr. */
async function printQuery(
  connector: Connector,
  text: string,
  options: { maxRows: number; timeoutMs: number; signal: AbortSignal; json: boolean },
  io: CommandIo,
): Promise<number> {
  const { maxRows, timeoutMs, signal, json } = options;
  const result = await connector.query(text, { maxRows, timeoutMs, signal }).catch(firstLineOnly);
  if (json) {
    for (const row of result.rows) {
      io.stdout(JSON.stringify(Object.fromEntries(result.columns.map((column, index) => [column.name, row[index] ?? null]))));
    }
    if (result.truncated) io.stderr(`truncated at ${maxRows} rows`);
  } else {
    io.stdout(formatTable(result));
    io.stderr(`(${result.rowCount} row${result.rowCount === 1 ? '' : 's'}${result.truncated ? `, truncated at ${maxRows}` : ''})`);
  }
  return 0;
}

/** Engines quote the query under their message with a caret on later lines; stderr gets one line. */
function firstLineOnly(error: unknown): never {
  const failure = WorkbenchError.from(error);
  const line = failure.message.split('\n', 1)[0] ?? failure.message;
  throw new WorkbenchError(failure.code, line.trim(), { retryable: failure.retryable, cause: error });
}
