import type { SchemaInfo } from '../../src-main/contract';

type RelationalSchema = Extract<SchemaInfo, { kind: 'relational' }>;
type Table = RelationalSchema['tables'][number];

/** What a completion names; the editor picks its icon from this. */
export type SqlCompletionKind = 'catalog' | 'schema' | 'table' | 'view' | 'column';

export interface SqlCompletion {
  /** The name as the schema browser shows it (a dotted path for a table of another schema). */
  label: string;
  kind: SqlCompletionKind;
  detail: string;
  /** The text to insert: each part of a name quoted where plain SQL would not read it (`"building-usa1836"`). */
  insertText: string;
}

/**
 * How the connection's SQL quotes a name: double quotes (standard SQL: Trino, PostgreSQL,
 * SQLite, DuckDB) or backticks (MySQL and MariaDB, where double quotes make a string).
 */
export type IdentifierQuote = '"' | '`';

/** One part of a dotted name as SQL writes it: a plain identifier, a double-quoted or a backticked one. */
const namePart = String.raw`"(?:[^"]|"")+"|\`(?:[^\`]|\`\`)+\`|[A-Za-z_][\w$]*`;
/** The dotted path typed right before the word under the cursor: `lake.sales.` or `"building-usa1836".`. */
const qualifierAtEnd = new RegExp(String.raw`((?:(?:${namePart})\s*\.\s*)+)$`);

/**
 * The completions at a cursor, from the connection's schema. Table names are dotted paths as
 * the connector reports them (Trino: `nodes` in the connection's schema, `sales.orders` in
 * another schema of its catalog, `lake.sales.orders` in another catalog; PostgreSQL:
 * `schema.table`), so a path is completed part by part: at the start of a name the catalogs,
 * schemas and tables that begin one, after `lake.` the schemas of `lake`, after `lake.sales.`
 * its tables, and after a table's full name or its alias (`orders o` … `o.`) its columns.
 * Without a qualifier every column is offered too. `before` is the line up to the word being
 * typed, `text` the whole query (where aliases are declared). A name inserted is quoted with
 * `quote` where plain SQL would not read it.
 */
export function sqlCompletions(schema: RelationalSchema, input: { text: string; before: string }, quote: IdentifierQuote = '"'): SqlCompletion[] {
  const quotedPart = (part: string): string => quotedName(part, quote);
  const qualifier = qualifierAtEnd.exec(input.before)?.[1];
  const path = qualifier === undefined ? [] : splitPath(qualifier);
  const completions: SqlCompletion[] = [];
  const seen = new Set<string>();
  const add = (completion: SqlCompletion): void => {
    const key = `${completion.kind}:${completion.label}`;
    if (seen.has(key)) return;
    seen.add(key);
    completions.push(completion);
  };

  if (path.length > 0) {
    const table = resolveQualifier(schema, input.text, path);
    for (const column of table?.columns ?? []) add({ label: column.name, kind: 'column', detail: column.type, insertText: quotedPart(column.name) });
    for (const candidate of schema.tables) {
      const parts = partsOf(candidate);
      if (parts.length <= path.length || !startsWith(parts, path)) continue;
      add(partCompletion(candidate, parts, path.length, quotedPart));
    }
    return completions;
  }

  for (const table of schema.tables) {
    const parts = partsOf(table);
    // The first part of every name (a catalog, a schema or a table), then the whole name, so
    // typing `orders` still finds `lake.sales.orders`.
    add(partCompletion(table, parts, 0, quotedPart));
    if (parts.length > 1) add({ label: table.name, kind: tableKind(table), detail: tableDetail(table), insertText: parts.map(quotedPart).join('.') });
  }
  for (const table of schema.tables) {
    for (const column of table.columns) add({ label: column.name, kind: 'column', detail: `${table.name} · ${column.type}`, insertText: quotedPart(column.name) });
  }
  return completions;
}

/** The completion for part `index` of a table's dotted name: the table itself at the last part. */
function partCompletion(table: Table, parts: string[], index: number, quotedPart: (part: string) => string): SqlCompletion {
  const part = parts[index] ?? '';
  const fromEnd = parts.length - 1 - index;
  if (fromEnd === 0) return { label: part, kind: tableKind(table), detail: tableDetail(table), insertText: quotedPart(part) };
  // `schema.table` or `catalog.schema.table`: the part two from the end is a catalog.
  const kind = fromEnd === 1 ? 'schema' : 'catalog';
  const within = index > 0 ? ` of ${parts.slice(0, index).join('.')}` : '';
  return { label: part, kind, detail: `${kind}${within}`, insertText: quotedPart(part) };
}

function tableKind(table: Table): 'table' | 'view' {
  return table.kind === 'view' ? 'view' : 'table';
}

function tableDetail(table: Table): string {
  return `${table.kind}${table.rowCount === null ? '' : ` · ${table.rowCount} rows`}`;
}

/**
 * The table a qualifier names: its full dotted name, else an alias declared in the query
 * (`FROM lake.sales.orders o`, `JOIN nodes AS n`), else the one table whose name the path ends
 * with (`memory.wb.nodes` for `nodes` when the connection's schema is `memory.wb`).
 */
function resolveQualifier(schema: RelationalSchema, text: string, path: string[]): Table | undefined {
  const byParts = (parts: string[]): Table | undefined => schema.tables.find((table) => samePath(partsOf(table), parts));
  const exact = byParts(path);
  if (exact) return exact;
  if (path.length === 1) {
    const alias = escapeRegExp(path[0] ?? '');
    const declared = new RegExp(String.raw`((?:${namePart})(?:\s*\.\s*(?:${namePart}))*)\s+(?:AS\s+)?(?:"${alias}"|${alias})(?![\w$])`, 'gi');
    // The first declaration that names a table: `SELECT o.x` matches the pattern too, naming none.
    for (const match of text.matchAll(declared)) {
      const table = byParts(splitPath(match[1] ?? ''));
      if (table) return table;
    }
  }
  const endingWith = schema.tables.filter((table) => {
    const parts = partsOf(table);
    return parts.length < path.length && samePath(path.slice(path.length - parts.length), parts);
  });
  return endingWith.length === 1 ? endingWith[0] : undefined;
}

/** `lake.sales.`, `"a""b" . c` or `` `shop`.`order items`. `` as its parts, unquoted. */
function splitPath(text: string): string[] {
  return [...text.matchAll(new RegExp(namePart, 'g'))].map(([part]) => {
    const quote = part[0];
    return quote === '"' || quote === '`' ? part.slice(1, -1).replaceAll(quote + quote, quote) : part;
  });
}

function partsOf(table: Table): string[] {
  return table.name.split('.');
}

function startsWith(parts: string[], prefix: string[]): boolean {
  return samePath(parts.slice(0, prefix.length), prefix);
}

/** Unquoted SQL names compare without regard to case (Trino and PostgreSQL fold them). */
function samePath(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((part, index) => part.toLowerCase() === (b[index] ?? '').toLowerCase());
}

/** A name part as SQL reads it: bare when it is a plain identifier, else in the dialect's quotes. */
function quotedName(part: string, quote: IdentifierQuote): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(part) ? part : `${quote}${part.replaceAll(quote, quote + quote)}${quote}`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
