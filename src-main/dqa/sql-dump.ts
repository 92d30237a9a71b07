/**
 * Parser for the relational DQA dumps: MySQL-flavoured `CREATE TABLE` and `INSERT INTO`
 * statements. It is deliberately strict: anything it does not understand is reported with
 * the dump name, line and column rather than skipped, because a silently dropped row would
 * change simulated answers.
 *
 * Supported:
 * - `CREATE TABLE [IF NOT EXISTS] t (col TYPE[(n[,m])] [constraints], ..., [CONSTRAINT x]
 *   PRIMARY KEY (a, b)) [table options];` with column constraints NOT NULL, NULL,
 *   PRIMARY KEY, UNIQUE [KEY], DEFAULT <literal>, UNSIGNED, AUTO_INCREMENT.
 * - `INSERT INTO t [(cols)] VALUES (...), (...);` — the column list may be a subset (missing
 *   columns take their DEFAULT, else NULL) and in any order.
 * - `DROP TABLE [IF EXISTS] t;`, empty statements, `--`, `#` and block comments.
 */
import { repairFieldName } from './dump-defects';
import { DumpParseError, TokenCursor, type Token } from './dump-lexer';

export type DumpValue = string | number | boolean | null;

export interface DumpColumn {
  name: string;
  /** normalized */
  type: 'TEXT' | 'INTEGER' | 'REAL' | 'BOOLEAN';
  /** as written, e.g. VARCHAR(30) */
  declaredType: string;
}

export interface DumpTable {
  name: string;
  columns: DumpColumn[];
  primaryKey: string[];
  rows: DumpValue[][] /* in column order, in file order */;
}

type NormalizedType = DumpColumn['type'];

const TYPE_FAMILIES: ReadonlyMap<string, NormalizedType> = new Map<string, NormalizedType>([
  ['VARCHAR', 'TEXT'],
  ['CHAR', 'TEXT'],
  ['TEXT', 'TEXT'],
  ['TINYTEXT', 'TEXT'],
  ['MEDIUMTEXT', 'TEXT'],
  ['LONGTEXT', 'TEXT'],
  ['INT', 'INTEGER'],
  ['INTEGER', 'INTEGER'],
  ['BIGINT', 'INTEGER'],
  ['SMALLINT', 'INTEGER'],
  ['MEDIUMINT', 'INTEGER'],
  ['TINYINT', 'INTEGER'],
  ['FLOAT', 'REAL'],
  ['DOUBLE', 'REAL'],
  ['REAL', 'REAL'],
  ['DECIMAL', 'REAL'],
  ['NUMERIC', 'REAL'],
  ['BOOLEAN', 'BOOLEAN'],
  ['BOOL', 'BOOLEAN'],
]);

export interface TableState {
  table: DumpTable;
  defaults: DumpValue[];
  /** Lower-cased column name -> index; MySQL column names are case-insensitive. */
  columnIndex: Map<string, number>;
  primaryKeyIndexes: number[];
  /** Primary key (the value, or the length-prefixed tuple) -> line of the row that first used it. */
  seenKeys: Map<DumpValue, number>;
}

/** A literal as written, before it is checked against its column's type. */
interface Literal {
  value: DumpValue;
  /** Source text of numbers, kept so a number stored in a TEXT column keeps its spelling. */
  text: string;
  token: Token;
}

export function parseSqlDump(text: string, source = '<sql dump>'): DumpTable[] {
  const cursor = new TokenCursor(text, 'sql', source);
  const tables = new Map<string, TableState>();
  const order: string[] = [];

  while (!cursor.atEnd()) {
    if (cursor.acceptPunct(';')) continue;
    if (cursor.isKeyword('CREATE')) {
      const state = parseCreateTable(cursor);
      const key = state.table.name.toLowerCase();
      if (tables.has(key)) throw cursor.error(cursor.peek(-1), `table ${state.table.name} is created twice`);
      tables.set(key, state);
      order.push(key);
    } else if (cursor.isKeyword('INSERT')) {
      parseInsert(cursor, tables);
    } else if (cursor.isKeyword('DROP')) {
      parseDropTable(cursor, tables, order);
    } else {
      throw cursor.expected('CREATE TABLE, INSERT INTO or DROP TABLE');
    }
    endStatement(cursor);
  }
  return order.map((key) => (tables.get(key) as TableState).table);
}

/**
 * One `CREATE TABLE …` statement (without its `;`) on its own, for the fast scanner
 * (sql-scan.ts), which reads the rows itself but leaves table definitions to this parser.
 */
export function parseCreateTableStatement(statement: string, source: string): TableState {
  const cursor = new TokenCursor(statement, 'sql', source);
  const state = parseCreateTable(cursor);
  if (!cursor.atEnd()) throw cursor.expected('the end of the CREATE TABLE statement');
  return state;
}

function endStatement(cursor: TokenCursor): void {
  if (cursor.atEnd()) return;
  cursor.expectPunct(';', 'at the end of the statement');
}

function parseDropTable(cursor: TokenCursor, tables: Map<string, TableState>, order: string[]): void {
  cursor.expectKeyword('DROP', 'statement');
  cursor.expectKeyword('TABLE', 'after DROP');
  const ifExists = cursor.acceptKeyword('IF');
  if (ifExists) cursor.expectKeyword('EXISTS', 'after DROP TABLE IF');
  const nameToken = cursor.expectIdentifier('a table name after DROP TABLE');
  const key = nameToken.text.toLowerCase();
  if (!tables.has(key)) {
    if (ifExists) return;
    throw cursor.error(nameToken, `DROP TABLE of unknown table ${nameToken.text}`);
  }
  tables.delete(key);
  order.splice(order.indexOf(key), 1);
}

function parseCreateTable(cursor: TokenCursor): TableState {
  cursor.expectKeyword('CREATE', 'statement');
  if (!cursor.isKeyword('TABLE')) throw cursor.expected('TABLE after CREATE (only CREATE TABLE is supported)');
  cursor.next();
  if (cursor.acceptKeyword('IF')) {
    cursor.expectKeyword('NOT', 'after CREATE TABLE IF');
    cursor.expectKeyword('EXISTS', 'after CREATE TABLE IF NOT');
  }
  const nameToken = cursor.expectIdentifier('a table name after CREATE TABLE');
  const table: DumpTable = { name: nameToken.text, columns: [], primaryKey: [], rows: [] };
  const defaults: DumpValue[] = [];
  const columnIndex = new Map<string, number>();
  let primaryKeyToken: Token | null = null;

  cursor.expectPunct('(', `after CREATE TABLE ${table.name}`);
  do {
    if (cursor.isKeyword('CONSTRAINT')) {
      cursor.next();
      if (!cursor.isKeyword('PRIMARY')) cursor.expectIdentifier('a constraint name after CONSTRAINT');
    }
    if (cursor.isKeyword('PRIMARY')) {
      const token = cursor.next();
      cursor.expectKeyword('KEY', 'after PRIMARY');
      if (primaryKeyToken !== null) throw cursor.error(token, `table ${table.name} declares PRIMARY KEY twice`);
      primaryKeyToken = token;
      table.primaryKey = parseNameList(cursor, 'a primary key column').map((t) => resolveColumn(cursor, table, columnIndex, t));
      continue;
    }
    if (cursor.isKeyword('KEY') || cursor.isKeyword('INDEX') || cursor.isKeyword('FOREIGN') || cursor.isKeyword('CHECK')) {
      throw cursor.error(cursor.peek(), `unsupported table element ${cursor.peek().text} in CREATE TABLE ${table.name}`);
    }
    const column = parseColumnDefinition(cursor, table.name);
    const key = column.column.name.toLowerCase();
    if (columnIndex.has(key)) throw cursor.error(column.nameToken, `duplicate column ${column.column.name} in table ${table.name}`);
    columnIndex.set(key, table.columns.length);
    table.columns.push(column.column);
    defaults.push(column.defaultValue);
    if (column.isPrimaryKey) {
      if (primaryKeyToken !== null) throw cursor.error(column.nameToken, `table ${table.name} declares PRIMARY KEY twice`);
      primaryKeyToken = column.nameToken;
      table.primaryKey = [column.column.name];
    }
  } while (cursor.acceptPunct(','));
  cursor.expectPunct(')', `or ',' in the column list of ${table.name}`);
  skipTableOptions(cursor);
  if (table.columns.length === 0) throw cursor.error(nameToken, `table ${table.name} has no columns`);

  const primaryKeyIndexes = table.primaryKey.map((name) => columnIndex.get(name.toLowerCase()) as number);
  return { table, defaults, columnIndex, primaryKeyIndexes, seenKeys: new Map() };
}

/** MySQL table options (they carry no data); anything else after the column list is an error. */
const TABLE_OPTION_WORDS = new Set(['ENGINE', 'DEFAULT', 'CHARSET', 'CHARACTER', 'SET', 'COLLATE', 'AUTO_INCREMENT', 'COMMENT', 'ROW_FORMAT']);

/** Accepts `ENGINE=InnoDB DEFAULT CHARSET=utf8 COMMENT='x'` style `word[=]value` options. */
function skipTableOptions(cursor: TokenCursor): void {
  while (cursor.peek().kind === 'identifier' && TABLE_OPTION_WORDS.has(cursor.peek().text.toUpperCase())) {
    while (cursor.peek().kind === 'identifier' && TABLE_OPTION_WORDS.has(cursor.peek().text.toUpperCase())) cursor.next();
    cursor.acceptPunct('=');
    const value = cursor.peek();
    if (value.kind !== 'identifier' && value.kind !== 'number' && value.kind !== 'string') throw cursor.expected('a table option value');
    cursor.next();
  }
}

function parseNameList(cursor: TokenCursor, what: string): Token[] {
  if (!cursor.acceptPunct('(')) throw cursor.expected(`'(' before the list of ${what}s`);
  const names: Token[] = [];
  do {
    names.push(cursor.expectIdentifier(what));
  } while (cursor.acceptPunct(','));
  if (!cursor.acceptPunct(')')) throw cursor.expected(`')' or ',' in the list of ${what}s`);
  return names;
}

function resolveColumn(cursor: TokenCursor, table: DumpTable, columnIndex: Map<string, number>, token: Token): string {
  const index = columnIndex.get(repairFieldName(token.text).toLowerCase());
  if (index === undefined) throw cursor.error(token, `unknown column ${token.text} in table ${table.name}`);
  return (table.columns[index] as DumpColumn).name;
}

interface ParsedColumn {
  column: DumpColumn;
  nameToken: Token;
  defaultValue: DumpValue;
  isPrimaryKey: boolean;
}

function parseColumnDefinition(cursor: TokenCursor, tableName: string): ParsedColumn {
  const nameToken = cursor.expectIdentifier(`a column name in CREATE TABLE ${tableName}`);
  const typeToken = cursor.expectIdentifier(`a type for column ${nameToken.text}`);
  const family = TYPE_FAMILIES.get(typeToken.text.toUpperCase());
  if (family === undefined) {
    throw cursor.error(typeToken, `unsupported column type ${typeToken.text} for column ${nameToken.text} (supported: ${[...TYPE_FAMILIES.keys()].join(', ')})`);
  }
  let declaredType = typeToken.text;
  if (cursor.acceptPunct('(')) {
    const sizes: string[] = [];
    do {
      const size = cursor.next();
      if (size.kind !== 'number') throw cursor.expected(`a size in ${typeToken.text}(...)`, size);
      sizes.push(size.text);
    } while (cursor.acceptPunct(','));
    cursor.expectPunct(')', `after the size of ${typeToken.text}`);
    declaredType += `(${sizes.join(',')})`;
  }
  // TINYINT(1) is MySQL's spelling of BOOLEAN.
  const type: NormalizedType = typeToken.text.toUpperCase() === 'TINYINT' && declaredType.endsWith('(1)') ? 'BOOLEAN' : family;
  const column: DumpColumn = { name: repairFieldName(nameToken.text), type, declaredType };
  let defaultValue: DumpValue = null;
  let isPrimaryKey = false;

  for (;;) {
    if (cursor.acceptKeyword('NOT')) {
      cursor.expectKeyword('NULL', 'after NOT');
    } else if (cursor.acceptKeyword('NULL') || cursor.acceptKeyword('UNSIGNED') || cursor.acceptKeyword('AUTO_INCREMENT')) {
      // No effect on the parsed data.
    } else if (cursor.acceptKeyword('UNIQUE')) {
      cursor.acceptKeyword('KEY');
    } else if (cursor.isKeyword('PRIMARY')) {
      cursor.next();
      cursor.expectKeyword('KEY', 'after PRIMARY');
      isPrimaryKey = true;
    } else if (cursor.acceptKeyword('DEFAULT')) {
      defaultValue = coerceLiteral(cursor, parseLiteral(cursor, `a DEFAULT value for column ${column.name}`), column, tableName);
    } else {
      break;
    }
  }
  return { column, nameToken, defaultValue, isPrimaryKey };
}

function parseLiteral(cursor: TokenCursor, what: string): Literal {
  const token = cursor.peek();
  if (token.kind === 'string') {
    cursor.next();
    return { value: token.text, text: token.text, token };
  }
  if (token.kind === 'number') {
    cursor.next();
    return { value: token.numberValue, text: token.text, token };
  }
  if (cursor.isPunct('-') || cursor.isPunct('+')) {
    cursor.next();
    const numberToken = cursor.next();
    if (numberToken.kind !== 'number') throw cursor.expected(`a number after '${token.text}'`, numberToken);
    const sign = token.text === '-' ? -1 : 1;
    return { value: sign * numberToken.numberValue, text: `${token.text === '-' ? '-' : ''}${numberToken.text}`, token };
  }
  if (cursor.isKeyword('TRUE') || cursor.isKeyword('FALSE')) {
    cursor.next();
    return { value: token.text.toUpperCase() === 'TRUE', text: token.text, token };
  }
  if (cursor.isKeyword('NULL')) {
    cursor.next();
    return { value: null, text: token.text, token };
  }
  throw cursor.expected(what);
}

/** Checks a literal against its column type, converting only where MySQL itself would without loss. */
function coerceLiteral(cursor: TokenCursor, literal: Literal, column: DumpColumn, tableName: string): DumpValue {
  const { value } = literal;
  if (value === null) return null;
  switch (column.type) {
    case 'TEXT':
      if (typeof value === 'string') return value;
      if (typeof value === 'number') return literal.text;
      throw mismatch(cursor, literal, column, tableName);
    case 'INTEGER':
      if (typeof value === 'number' && Number.isInteger(value)) return value;
      if (typeof value === 'boolean') return value ? 1 : 0;
      throw mismatch(cursor, literal, column, tableName);
    case 'REAL':
      if (typeof value === 'number') return value;
      throw mismatch(cursor, literal, column, tableName);
    case 'BOOLEAN':
      if (typeof value === 'boolean') return value;
      if (value === 0 || value === 1) return value === 1;
      throw mismatch(cursor, literal, column, tableName);
  }
}

function mismatch(cursor: TokenCursor, literal: Literal, column: DumpColumn, tableName: string): DumpParseError {
  return cursor.error(literal.token, `value ${literal.text === '' ? '""' : literal.text} does not fit column ${tableName}.${column.name} of type ${column.declaredType}`);
}

function parseInsert(cursor: TokenCursor, tables: Map<string, TableState>): void {
  cursor.expectKeyword('INSERT', 'statement');
  cursor.expectKeyword('INTO', 'after INSERT');
  const nameToken = cursor.expectIdentifier('a table name after INSERT INTO');
  const state = tables.get(nameToken.text.toLowerCase());
  if (state === undefined) throw cursor.error(nameToken, `INSERT INTO unknown table ${nameToken.text} (no CREATE TABLE before it)`);
  const { table } = state;

  let targetIndexes: number[];
  if (cursor.isPunct('(')) {
    const seen = new Set<number>();
    targetIndexes = parseNameList(cursor, 'column').map((token) => {
      const index = state.columnIndex.get(repairFieldName(token.text).toLowerCase());
      if (index === undefined) throw cursor.error(token, `unknown column ${token.text} in INSERT INTO ${table.name}`);
      if (seen.has(index)) throw cursor.error(token, `column ${token.text} listed twice in INSERT INTO ${table.name}`);
      seen.add(index);
      return index;
    });
  } else {
    targetIndexes = table.columns.map((_, index) => index);
  }

  if (!cursor.acceptKeyword('VALUES') && !cursor.acceptKeyword('VALUE')) throw cursor.expected(`VALUES in INSERT INTO ${table.name}`);
  // Built once per statement, not once per value: they are only read when a value is wrong.
  const valueContext = `a value (string, number, TRUE, FALSE or NULL) in INSERT INTO ${table.name}`;
  const rowEndContext = `or ',' in a row of INSERT INTO ${table.name}`;
  do {
    if (!cursor.isPunct('(')) throw cursor.expected(`'(' to start a row of INSERT INTO ${table.name}`);
    const open = cursor.next();
    const row = [...state.defaults];
    let count = 0;
    if (!cursor.isPunct(')')) {
      do {
        const literal = parseLiteral(cursor, valueContext);
        const columnIndex = targetIndexes[count];
        if (columnIndex === undefined) throw cursor.error(literal.token, `too many values in a row of INSERT INTO ${table.name}: expected ${targetIndexes.length}`);
        row[columnIndex] = coerceLiteral(cursor, literal, table.columns[columnIndex] as DumpColumn, table.name);
        count += 1;
      } while (cursor.acceptPunct(','));
    }
    cursor.expectPunct(')', rowEndContext);
    if (count !== targetIndexes.length) {
      throw cursor.error(open, `row of INSERT INTO ${table.name} has ${count} values, expected ${targetIndexes.length}`);
    }
    checkPrimaryKey(cursor, state, row, open);
    table.rows.push(row);
  } while (cursor.acceptPunct(','));
}

/** MySQL would reject a duplicate key; accepting it here would double-count a row in simulations. */
function checkPrimaryKey(cursor: TokenCursor, state: TableState, row: DumpValue[], at: Token): void {
  const indexes = state.primaryKeyIndexes;
  if (indexes.length === 0) return;
  let key: DumpValue;
  if (indexes.length === 1) {
    // A column's values all have its type, so the value itself is the key.
    key = row[indexes[0] as number] ?? null;
    if (key === null) throw cursor.error(at, `NULL in primary key (${state.table.primaryKey.join(', ')}) of ${state.table.name}`);
  } else {
    let joined = '';
    for (const index of indexes) {
      const value = row[index] ?? null;
      if (value === null) throw cursor.error(at, `NULL in primary key (${state.table.primaryKey.join(', ')}) of ${state.table.name}`);
      const text = String(value);
      // Length-prefixed, so no two different key tuples join to the same text.
      joined += `${text.length}:${text};`;
    }
    key = joined;
  }
  const firstLine = state.seenKeys.get(key);
  if (firstLine !== undefined) {
    const shown = JSON.stringify(indexes.map((index) => row[index] ?? null));
    throw cursor.error(at, `duplicate primary key ${shown} in ${state.table.name} (first inserted on line ${firstLine})`);
  }
  state.seenKeys.set(key, at.line);
}
