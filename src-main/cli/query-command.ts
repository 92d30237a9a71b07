import { parseArgs } from 'node:util';
import { WorkbenchError } from '../contract/errors';
import { openConnectionUri } from '../connectors/connection-uri';
import { defaultQuerySettings } from '../contract/notebook';
import { formatTable } from './format-table';
import { positiveInteger, type CommandIo } from './command-io';

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
    },
  });
  if (!values.connection) throw new WorkbenchError('invalid-request', `--connection is required: ${queryUsage}`);
  if (positionals.length !== 1) throw new WorkbenchError('invalid-request', `give exactly one query: ${queryUsage}`);
  const maxRows = positiveInteger(values['max-rows'], '--max-rows') ?? defaultQuerySettings.maxRows;
  const timeoutMs = positiveInteger(values['timeout-ms'], '--timeout-ms') ?? defaultQuerySettings.timeoutMs;

  // A password in the URI is used for this process only.
  const connector = await openConnectionUri(values.connection).catch(firstLineOnly);
  try {
    const result = await connector.query(positionals[0] as string, { maxRows, timeoutMs }).catch(firstLineOnly);
    if (values.json) {
      for (const row of result.rows) {
        io.stdout(JSON.stringify(Object.fromEntries(result.columns.map((column, index) => [column.name, row[index] ?? null]))));
      }
    } else {
      io.stdout(formatTable(result));
      io.stderr(`(${result.rowCount} row${result.rowCount === 1 ? '' : 's'}${result.truncated ? `, truncated at ${maxRows}` : ''})`);
    }
    if (values.json && result.truncated) io.stderr(`truncated at ${maxRows} rows`);
    return 0;
  } finally {
    await connector.close();
  }
}

/** Engines quote the query under their message with a caret on later lines; stderr gets one line. */
function firstLineOnly(error: unknown): never {
  const failure = WorkbenchError.from(error);
  const line = failure.message.split('\n', 1)[0] ?? failure.message;
  throw new WorkbenchError(failure.code, line.trim(), { retryable: failure.retryable, cause: error });
}
