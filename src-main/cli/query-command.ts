import { parseOptions } from './parse-options';
import { WorkbenchError } from '../contract/errors';
import type { Connector, RowBatch } from '../connectors/connector';
import type { QueryResult, ResultColumn } from '../contract/data';
import { rowWriter, streamFormats, type StreamFormat } from './row-writers';
import { defaultQuerySettings, querySettingsLimits } from '../contract/query-limits';
import { formatTable } from './format-table';
import { cappedPositiveInteger, printConnectionWarnings, type CommandIo } from './command-io';
import { passwordFileOption, resolveDatabasePassword } from './secret-args';

import { queryUsage } from './usage';
import { streamSqliteInProcess } from './sqlite-direct-query';

export { queryUsage };

/** `dwb query`: one read-only query, rows on stdout, one line on stderr on failure. */
export async function runQueryCommand(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseOptions({
    args,
    allowPositionals: true,
    options: {
      connection: { type: 'string', short: 'c' },
      json: { type: 'boolean', default: false },
      format: { type: 'string' },
      'max-rows': { type: 'string' },
      'timeout-ms': { type: 'string' },
      ...passwordFileOption,
    },
  });
  if (!values.connection) throw new WorkbenchError('invalid-request', `--connection is required: ${queryUsage}`);
  if (positionals.length !== 1) throw new WorkbenchError('invalid-request', `give exactly one query: ${queryUsage}`);
  // The same caps as a notebook cell's settings (docs/data-sources.md).
  const maxRows = cappedPositiveInteger(values['max-rows'], '--max-rows', querySettingsLimits.maxRows) ?? defaultQuerySettings.maxRows;
  const timeoutMs = cappedPositiveInteger(values['timeout-ms'], '--timeout-ms', querySettingsLimits.timeoutMs) ?? defaultQuerySettings.timeoutMs;

  const format = outputFormat(values.format, values.json === true);
  const text = positionals[0] as string;
  // The password (file, URI or DWB_DB_PASSWORD) is used for this process only.
  const { target, password } = resolveDatabasePassword(values.connection, values['password-file']);
  // A SQLite file streamed to a descriptor is read right here (see sqlite-direct-query.ts).
  if (target.engine === 'sqlite' && format !== 'table' && io.stdoutFd !== undefined) {
    try {
      return streamSqliteInProcess(target.path, text, { maxRows, timeoutMs, format, stdoutFd: io.stdoutFd }, io);
    } catch (error) {
      return firstLineOnly(error);
    }
  }

  // Ctrl-C or a kill (SIGTERM) cancels the query, so the connector still closes and removes
  // what it made (the temp copy behind csv:/parquet:) before the process ends.
  const stop = new AbortController();
  const cancel = (): void => stop.abort();
  process.once('SIGINT', cancel);
  process.once('SIGTERM', cancel);
  try {
    // Loaded only here: the in-process SQLite path above needs no connector.
    const { openConnector } = await import('../connectors/open-connector');
    const connector = await openConnector(target, password).catch(firstLineOnly);
    try {
      printConnectionWarnings(connector, io);
      if (format === 'table') return await printTable(connector, text, { maxRows, timeoutMs, signal: stop.signal }, io);
      return await streamQuery(connector, text, { maxRows, timeoutMs, signal: stop.signal, format }, io, stop);
    } finally {
      await connector.close();
    }
  } finally {
    process.removeListener('SIGINT', cancel);
    process.removeListener('SIGTERM', cancel);
  }
}

function outputFormat(format: string | undefined, json: boolean): StreamFormat | 'table' {
  if (format === undefined) return json ? 'jsonl' : 'table';
  const known: readonly string[] = [...streamFormats, 'table'];
  if (!known.includes(format)) throw new WorkbenchError('invalid-request', `--format is one of ${known.join(', ')}, got "${format}"`);
  if (json && format !== 'jsonl') throw new WorkbenchError('invalid-request', `--json is --format jsonl; it cannot go with --format ${format}`);
  return format as StreamFormat | 'table';
}

/** Runs the query and prints its rows as an aligned table (which needs them all), the count on stderr. */
async function printTable(connector: Connector, text: string, options: { maxRows: number; timeoutMs: number; signal: AbortSignal }, io: CommandIo): Promise<number> {
  const result = await connector.query(text, options).catch(firstLineOnly);
  io.stdout(formatTable(result));
  io.stderr(`(${result.rowCount} row${result.rowCount === 1 ? '' : 's'}${result.truncated ? `, truncated at ${options.maxRows}` : ''})`);
  return 0;
}

/**
 * Streams the rows to stdout batch by batch as the connector reads them, waiting for stdout to
 * drain before the next batch, so memory stays bounded by a batch whatever the result's size.
 * A reader that goes away (`| head`) ends the query quietly.
 */
async function streamQuery(
  connector: Connector,
  text: string,
  options: { maxRows: number; timeoutMs: number; signal: AbortSignal; format: StreamFormat },
  io: CommandIo,
  stop: AbortController,
): Promise<number> {
  const write = io.write ?? ((chunk: string) => io.stdout(chunk.replace(/\n$/, '')));
  const toText = rowWriter(options.format);
  let columns: ResultColumn[] = [];
  let outputClosed = false;
  const onRows = async (batch: RowBatch): Promise<void> => {
    columns = batch.columns;
    try {
      await write(toText(batch.columns, batch.rows));
    } catch (error) {
      outputClosed = true;
      throw error;
    }
  };
  let result: QueryResult;
  try {
    result = await connector.query(text, { maxRows: options.maxRows, timeoutMs: options.timeoutMs, signal: options.signal, onRows });
  } catch (error) {
    if (!outputClosed) return firstLineOnly(error);
    stop.abort();
    return 0;
  }
  // An empty result still gets its header line (CSV/TSV), from the columns the end reported.
  if (result.rowCount === 0) await write(toText(columns.length > 0 ? columns : result.columns, []));
  io.stderr(`(${result.rowCount} row${result.rowCount === 1 ? '' : 's'}${result.truncated ? `, truncated at ${options.maxRows}` : ''})`);
  return 0;
}

/** Engines quote the query under their message with a caret on later lines; stderr gets one line. */
function firstLineOnly(error: unknown): never {
  const failure = WorkbenchError.from(error);
  const line = failure.message.split('\n', 1)[0] ?? failure.message;
  throw new WorkbenchError(failure.code, line.trim(), { retryable: failure.retryable, cause: error });
}
