import { delimitedLines, type QueryResult } from '../../src-main/contract';

type Table = Pick<QueryResult, 'columns' | 'rows'>;

const names = (result: Table) => result.columns.map((column) => column.name);

/** CSV with CRLF line ends, as the streamed exports write it. */
export function toCsv(result: Table): string {
  return delimitedLines(names(result), result.rows, { delimiter: ',', newline: '\r\n', header: true });
}

/** Tab-separated text, which spreadsheets paste as cells; every line ends with LF, the last one too. */
export function toTsv(result: Table): string {
  return delimitedLines(names(result), result.rows, { delimiter: '\t', newline: '\n', header: true });
}
