/**
 * Richer feedback from the database, an extension (`query-feedback`, contract/fidelity.ts): on
 * for every technique at product fidelity, for AutoPlan only at paper fidelity. AutoPlan's authors found
 * fine-grained environment feedback to be what lets an agent correct itself (Ouyang & Li
 * 2023, §5). An unknown table, column, label or property gets the valid names from the
 * schema (and the closest one); a syntax error names the clause it is in; an empty result of
 * a simple filtered SQL query says which filter removed the rows. Everything here only adds
 * to the database's own message, and the counting queries go through the same read-only
 * connector as any other query.
 */
import type { SchemaInfo } from '../contract/data';

/** At most this much schema text in one piece of feedback. */
const MAX_LISTING = 1500;
/** At most this many filters are counted one by one. */
const MAX_FILTERS = 4;

function normalized(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** The names in `known` closest to `wanted`: the same letters ignoring case and punctuation, or one containing the other. */
function closest(wanted: string, known: readonly string[]): string[] {
  const target = normalized(wanted);
  if (target === '') return [];
  const same = known.filter((name) => normalized(name) === target);
  if (same.length > 0) return same;
  return known.filter((name) => target.length >= 3 && (normalized(name).includes(target) || target.includes(normalized(name)) && normalized(name).length >= 3)).slice(0, 3);
}

function bounded(text: string): string {
  return text.length <= MAX_LISTING ? text : `${text.slice(0, MAX_LISTING)} …`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The quoted or bare name an engine's unknown-object message is about, and whether it is a container (table, label) or a field (column, property). */
export function unknownName(message: string): { name: string; of: 'container' | 'field' } | null {
  const patterns: [RegExp, 'container' | 'field'][] = [
    [/no such table: ([\w.]+)/i, 'container'],
    [/no such column: ([\w.]+)/i, 'field'],
    [/Table with name "?([\w.]+)"? does not exist/i, 'container'],
    [/Table ([\w.]+) does not exist/i, 'container'],
    [/relation "([^"]+)" does not exist/i, 'container'],
    [/Table '([^']+)' doesn't exist/i, 'container'],
    [/Referenced column "([^"]+)" not found/i, 'field'],
    [/column "?([\w.]+)"? does not exist/i, 'field'],
    [/Unknown column '([^']+)'/i, 'field'],
    [/Cannot find property (\w+)/i, 'field'],
    [/does not have a column named "([^"]+)"/i, 'field'],
  ];
  for (const [pattern, of] of patterns) {
    const match = pattern.exec(message);
    if (match?.[1]) return { name: match[1].split('.').at(-1) as string, of };
  }
  return null;
}

function containers(schema: SchemaInfo): { name: string; fields: string[] }[] {
  return schema.kind === 'relational'
    ? schema.tables.map((table) => ({ name: table.name, fields: table.columns.map((column) => column.name) }))
    : [...schema.labels, ...schema.relationshipTypes].map((element) => ({ name: element.name, fields: element.properties.map((property) => property.name) }));
}

/** What to add to an unknown-object or syntax error; null when there is nothing useful to say. */
export function errorFeedback(error: { code: string; message: string }, query: string, schema: SchemaInfo | null): string | null {
  const unknown = schema ? unknownName(error.message) : null;
  if (unknown && schema) {
    const all = containers(schema);
    if (unknown.of === 'container') {
      const names = all.map((container) => container.name);
      const near = closest(unknown.name, names);
      const listing = schema.kind === 'relational' ? `The tables are: ${names.join(', ')}.` : `The node labels are: ${schema.labels.map((label) => label.name).join(', ')}; the relationship types: ${schema.relationshipTypes.map((type) => type.name).join(', ')}.`;
      return bounded(`${near.length > 0 ? `Did you mean ${near.join(' or ')}? ` : ''}${listing}`);
    }
    const named = all.filter((container) => new RegExp(`(^|[^\\w])${escapeRegExp(container.name)}($|[^\\w])`, 'i').test(query));
    const candidates = named.length > 0 ? named : all;
    const near = closest(unknown.name, [...new Set(candidates.flatMap((container) => container.fields))]);
    const noun = schema.kind === 'relational' ? 'Columns' : 'Properties';
    const listing = candidates.map((container) => `${container.name}(${container.fields.join(', ')})`).join('; ');
    return bounded(`${near.length > 0 ? `Did you mean ${near.join(' or ')}? ` : ''}${noun} of ${named.length > 0 ? 'what the query names' : 'the database'}: ${listing}.`);
  }
  if (error.code === 'syntax') {
    const token = /near "([^"]+)"/i.exec(error.message)?.[1] ?? /near '([^']*)'/i.exec(error.message)?.[1] ?? /Invalid input '([^']+)'/i.exec(error.message)?.[1];
    if (!token) return null;
    const at = query.toLowerCase().indexOf(token.toLowerCase());
    if (at < 0) return null;
    const clause = clauseAt(query, at);
    return clause ? `The error is in the ${clause} clause, at "${token}".` : `The error is at "${token}", before any clause keyword.`;
  }
  return null;
}

const CLAUSES = ['SELECT', 'FROM', 'WHERE', 'GROUP BY', 'HAVING', 'ORDER BY', 'LIMIT', 'JOIN', 'ON', 'MATCH', 'OPTIONAL MATCH', 'RETURN', 'WITH', 'UNWIND'];

/** The last clause keyword that starts before `position`, outside quotes. */
function clauseAt(query: string, position: number): string | null {
  const before = query.slice(0, position).replace(/'[^']*'|"[^"]*"/g, (quoted) => ' '.repeat(quoted.length));
  let best: { clause: string; at: number } | null = null;
  for (const clause of CLAUSES) {
    const pattern = new RegExp(`\\b${clause.replace(' ', '\\s+')}\\b`, 'gi');
    for (const match of before.matchAll(pattern)) if (!best || match.index >= best.at) best = { clause, at: match.index };
  }
  return best?.clause ?? null;
}

/** Splits a WHERE clause on its top-level ANDs (outside parentheses and quotes). */
export function topLevelConditions(where: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let index = 0; index < where.length; index += 1) {
    const char = where[index] as string;
    if (quote) {
      if (char === quote) quote = null;
      continue;
    }
    if (char === "'" || char === '"') quote = char;
    else if (char === '(') depth += 1;
    else if (char === ')') depth -= 1;
    else if (depth === 0 && /^\s+and\s+/i.test(where.slice(index)) && /\s/.test(char)) {
      const match = /^\s+and\s+/i.exec(where.slice(index)) as RegExpExecArray;
      parts.push(where.slice(start, index).trim());
      index += match[0].length - 1;
      start = index + 1;
    }
  }
  parts.push(where.slice(start).trim());
  return parts.filter((part) => part !== '');
}

/** A single-table `SELECT … FROM t [alias] WHERE …` (no join, no subquery), or null. */
export function simpleFilteredQuery(query: string): { from: string; conditions: string[] } | null {
  const text = query.trim().replace(/;\s*$/, '');
  if ((text.match(/\bselect\b/gi) ?? []).length !== 1 || /\bjoin\b|\bunion\b|,\s*\w+\s+where\b/i.test(text)) return null;
  const match = /^select\s+[\s\S]+?\s+from\s+([A-Za-z_]\w*(?:\s+(?:as\s+)?(?!where\b)[A-Za-z_]\w*)?)\s+where\s+([\s\S]+?)(?:\s+(?:group\s+by|order\s+by|limit|having)\b[\s\S]*)?$/i.exec(text);
  if (!match?.[1] || !match[2]) return null;
  const conditions = topLevelConditions(match[2]);
  return conditions.length === 0 ? null : { from: match[1], conditions };
}

/**
 * Why a simple filtered SQL query returned no rows: each filter counted alone. `count` runs a
 * `SELECT count(*)` and returns the count, or null when it could not.
 */
export async function emptyResultFeedback(query: string, count: (sql: string) => Promise<number | null>): Promise<string | null> {
  const parsed = simpleFilteredQuery(query);
  if (!parsed || parsed.conditions.length > MAX_FILTERS) return null;
  const table = parsed.from.split(/\s+/)[0] as string;
  const total = await count(`SELECT count(*) FROM ${parsed.from}`);
  if (total === null) return null;
  if (total === 0) return `No rows: ${table} is empty.`;
  const counts: { condition: string; rows: number | null }[] = [];
  for (const condition of parsed.conditions) counts.push({ condition, rows: await count(`SELECT count(*) FROM ${parsed.from} WHERE ${condition}`) });
  const none = counts.filter((entry) => entry.rows === 0);
  if (none.length > 0) return `No rows: ${none.map((entry) => `the filter ${entry.condition}`).join(' and ')} alone ${none.length === 1 ? 'matches' : 'match'} none of the ${total} rows of ${table}; check the value's spelling and case against the data.`;
  if (counts.length > 1 && counts.every((entry) => entry.rows !== null)) {
    return `No rows: each filter alone matches rows of ${table} (${counts.map((entry) => `${entry.condition}: ${entry.rows ?? 0}`).join('; ')}), but not all of them together.`;
  }
  return null;
}
