/**
 * Fast reading of relational dumps: `readSqlDump` gives exactly what `parseSqlDump` gives (the
 * same tables, rows and values, or the same error), several times faster on the DQA dumps.
 *
 * The rows — nearly all of a dump — are scanned in place (dump-scan.ts): one
 * `INSERT INTO t [(cols)] VALUES (…)[, (…)];` at a time, values read straight from the text,
 * checked against their column types and the primary key as the strict parser checks them.
 * `CREATE TABLE` statements (a handful per dump) go to the strict parser one statement at a
 * time. At anything else (DROP TABLE, escaped strings, back-quoted names, any error) the scan
 * gives up and the whole dump goes to the strict parser, which reads it or says precisely
 * what is wrong and where.
 */
import { repairFieldName } from './dump-defects';
import { attemptScan, CH, DumpText, giveUp, isIdentifierStart } from './dump-scan';
import { parseCreateTableStatement, parseSqlDump, type DumpColumn, type DumpTable, type DumpValue, type TableState } from './sql-dump';

/** The dump's tables, read by the fast scanner when it can and by the strict parser otherwise. */
export function readSqlDump(text: string, source = '<sql dump>'): DumpTable[] {
  return scanSqlDump(text, source) ?? parseSqlDump(text, source);
}

/** The fast scan alone: the tables `parseSqlDump` would give, or null where it gives up. */
export function scanSqlDump(text: string, source = '<sql dump>'): DumpTable[] | null {
  return attemptScan(() => scan(text, source));
}

/** A table being filled, with what reading its rows needs at hand. */
interface ScanTable {
  state: TableState;
  types: DumpColumn['type'][];
  /** The last column list seen in an INSERT (from `(` to `)` as written) and the columns it named. */
  listText: string;
  listIndexes: number[];
  allIndexes: number[];
}

function scan(text: string, source: string): DumpTable[] {
  const reader = new DumpText(text, 'sql');
  const tables = new Map<string, ScanTable>();
  const order: string[] = [];
  /** Table names seen so far (see DumpText.name). */
  const names: string[] = [];
  for (;;) {
    reader.skipBlank();
    if (reader.atEnd()) break;
    if (reader.peek() === CH.semicolon) {
      reader.pos += 1;
      continue;
    }
    const start = reader.pos;
    if (reader.acceptKeyword('insert')) {
      scanInsert(reader, tables, names);
    } else if (reader.acceptKeyword('create')) {
      reader.pos = start;
      const end = reader.statementEnd();
      let state: TableState;
      try {
        state = parseCreateTableStatement(text.slice(start, end), source);
      } catch {
        giveUp();
      }
      const key = state.table.name.toLowerCase();
      if (tables.has(key)) giveUp();
      const allIndexes = state.table.columns.map((_, index) => index);
      tables.set(key, { state, types: state.table.columns.map((column) => column.type), listText: '', listIndexes: allIndexes, allIndexes });
      order.push(key);
      reader.pos = end;
    } else {
      giveUp();
    }
    reader.skipBlank();
    if (reader.atEnd()) break;
    reader.expect(CH.semicolon);
  }
  return order.map((key) => (tables.get(key) as ScanTable).state.table);
}

function scanInsert(reader: DumpText, tables: Map<string, ScanTable>, names: string[]): void {
  reader.expectKeyword('into');
  const name = reader.name(names);
  if (name === null) giveUp();
  const table = tables.get(name.toLowerCase());
  if (table === undefined) giveUp();
  reader.skipBlank();
  let targets = table.allIndexes;
  if (reader.peek() === CH.openParen) targets = columnList(reader, table);
  if (!reader.acceptKeyword('values') && !reader.acceptKeyword('value')) giveUp();
  const { state, types } = table;
  const rows = state.table.rows;
  do {
    reader.expect(CH.openParen);
    const row = state.defaults.slice();
    let count = 0;
    do {
      const column = targets[count];
      if (column === undefined) giveUp();
      row[column] = literal(reader, types[column] as DumpColumn['type']);
      count += 1;
    } while (reader.accept(CH.comma));
    reader.expect(CH.closeParen);
    if (count !== targets.length) giveUp();
    checkPrimaryKey(state, row);
    rows.push(row);
  } while (reader.accept(CH.comma));
}

/** The columns an INSERT names; a list written exactly like the table's previous one is not read again. */
function columnList(reader: DumpText, table: ScanTable): number[] {
  const { text } = reader;
  const start = reader.pos;
  if (table.listText !== '' && text.startsWith(table.listText, start)) {
    reader.pos = start + table.listText.length;
    return table.listIndexes;
  }
  reader.pos += 1;
  const indexes: number[] = [];
  do {
    const name = reader.identifier();
    if (name === null) giveUp();
    const index = table.state.columnIndex.get(repairFieldName(name).toLowerCase());
    if (index === undefined || indexes.includes(index)) giveUp();
    indexes.push(index);
  } while (reader.accept(CH.comma));
  reader.expect(CH.closeParen);
  table.listText = text.slice(start, reader.pos);
  table.listIndexes = indexes;
  return indexes;
}

/** A value checked against its column's type as the strict parser's coerceLiteral checks it. */
function literal(reader: DumpText, type: DumpColumn['type']): DumpValue {
  reader.skipBlank();
  const c = reader.peek();
  if (c === CH.doubleQuote || c === CH.singleQuote) {
    const text = reader.string() as string;
    return type === 'TEXT' ? text : giveUp();
  }
  if (isIdentifierStart(c)) {
    if (reader.acceptKeyword('null')) return null;
    const truth = reader.acceptKeyword('true');
    if (!truth && !reader.acceptKeyword('false')) giveUp();
    if (type === 'BOOLEAN') return truth;
    if (type === 'INTEGER') return truth ? 1 : 0;
    return giveUp();
  }
  const value = reader.number();
  if (Number.isNaN(value)) return giveUp();
  if (type === 'REAL') return value;
  if (type === 'INTEGER') return Number.isInteger(value) ? value : giveUp();
  if (type === 'TEXT') return reader.numberText();
  return value === 0 || value === 1 ? value === 1 : giveUp();
}

/** The strict parser's duplicate and NULL key checks, with the same keys. */
function checkPrimaryKey(state: TableState, row: DumpValue[]): void {
  const indexes = state.primaryKeyIndexes;
  if (indexes.length === 0) return;
  let key: DumpValue;
  if (indexes.length === 1) {
    key = row[indexes[0] as number] ?? null;
    if (key === null) giveUp();
  } else {
    key = '';
    for (const index of indexes) {
      const value = row[index] ?? null;
      if (value === null) giveUp();
      const text = String(value);
      key += `${text.length}:${text};`;
    }
  }
  if (state.seenKeys.has(key)) giveUp();
  // The line is only read for the strict parser's message, which a rerun produces.
  state.seenKeys.set(key, 0);
}
