import type { SchemaInfo } from '../../contract/data';
import { WorkbenchError } from '../../contract/errors';
import type { Connector } from '../connector';

export type UnknownNameKind = 'table' | 'column' | 'label' | 'relationship type' | 'property';

/**
 * How each engine words an unknown name, and what kind of name it is. The name is read from the
 * engine's own message, so the suggestion says exactly what the engine could not find.
 */
const patterns: [pattern: RegExp, kind: UnknownNameKind][] = [
  // SQLite
  [/no such table: (?:[\w$]+\.)?([^\s,]+)/, 'table'],
  [/no such column: (?:[\w$"]+\.)?"?([^\s,"]+)"?/, 'column'],
  // DuckDB
  [/Catalog Error: Table with name ([^\s!]+) does not exist/, 'table'],
  [/Referenced column "?([^"\s]+)"? not found/, 'column'],
  // PostgreSQL
  [/relation "(?:[^"]+\.)?([^".]+)" does not exist/, 'table'],
  [/column "?(?:[\w$]+\.)?([^"\s.]+)"? does not exist/, 'column'],
  // MySQL / MariaDB
  [/Table '(?:[^'.]+\.)?([^'.]+)' doesn't exist/, 'table'],
  [/Unknown column '(?:[^'.]+\.)?([^'.]+)' in/, 'column'],
  // Trino (before LadybugDB's, which would take the quotes for part of the name)
  [/Table '(?:[^'.]+\.)*([^'.]+)' does not exist/, 'table'],
  [/Column '(?:[^'.]+\.)*([^'.]+)' cannot be resolved/, 'column'],
  // LadybugDB (and Kùzu before it)
  [/Table ([^\s]+) does not exist/, 'table'],
  [/Cannot find property ([^\s]+) for/, 'property'],
  // Neo4j (the connector's own wording of the server's notifications)
  [/the label ([^\s]+) does not exist/, 'label'],
  [/the relationship type ([^\s]+) does not exist/, 'relationship type'],
  [/the property ([^\s]+) does not exist/, 'property'],
];

export function unknownNameIn(message: string): { kind: UnknownNameKind; name: string } | null {
  for (const [pattern, kind] of patterns) {
    const match = pattern.exec(message);
    if (match?.[1]) return { kind, name: match[1] };
  }
  return null;
}

/** The names of that kind the database does have. */
export function namesOfKind(schema: SchemaInfo, kind: UnknownNameKind): string[] {
  if (schema.kind === 'relational') {
    if (kind === 'table' || kind === 'label') return schema.tables.map((table) => table.name);
    return [...new Set(schema.tables.flatMap((table) => table.columns.map((column) => column.name)))];
  }
  // LadybugDB calls node and relationship tables "tables".
  if (kind === 'table') return [...schema.labels, ...schema.relationshipTypes].map((element) => element.name);
  if (kind === 'label') return schema.labels.map((label) => label.name);
  if (kind === 'relationship type') return schema.relationshipTypes.map((type) => type.name);
  return [...new Set([...schema.labels, ...schema.relationshipTypes].flatMap((element) => element.properties.map((property) => property.name)))];
}

/**
 * Up to `limit` names close to `name`: the same name in another case first, then by edit
 * distance (at most a third of the name's length, so unrelated names are not offered).
 */
export function closestNames(name: string, candidates: readonly string[], limit = 3): string[] {
  const wanted = name.toLowerCase();
  const budget = Math.max(1, Math.floor(wanted.length / 3));
  return candidates
    .map((candidate) => ({ candidate, distance: candidate.toLowerCase() === wanted ? 0 : editDistance(wanted, candidate.toLowerCase()) }))
    .filter(({ candidate, distance }) => candidate !== name && distance <= budget)
    .sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate))
    .slice(0, limit)
    .map(({ candidate }) => candidate);
}

/** Edits between two names, a swap of two neighbouring letters (plian for plain) counting as one. */
function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      let best = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (before[j - 2] ?? 0) + 1);
      current[j] = best;
    }
    before = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The message's ending: the names the database has that come closest, or that none does. */
export function suggestionFor(unknown: { kind: UnknownNameKind; name: string }, schema: SchemaInfo): string {
  const close = closestNames(unknown.name, namesOfKind(schema, unknown.kind));
  if (close.length === 0) return `no ${unknown.kind} named ${unknown.name} in this database`;
  return `did you mean ${close.map((candidate) => `"${candidate}"`).join(', ')}?`;
}

/**
 * Adds suggestions to a connector's unknown-object errors: the unknown name is read from the
 * engine's message and compared with the names the schema lists. The code and the engine's own
 * words stay; when the schema cannot be read the error goes out as it came.
 */
export function withNameSuggestions(connector: Connector): Connector {
  let schema: Promise<SchemaInfo> | null = null;
  const query: Connector['query'] = async (text, options) => {
    try {
      return await connector.query(text, options);
    } catch (error) {
      if (!(error instanceof WorkbenchError) || error.code !== 'unknown-object') throw error;
      const unknown = unknownNameIn(error.message);
      if (unknown === null) throw error;
      schema ??= connector.schema();
      const known = await schema.catch(() => {
        schema = null;
        return null;
      });
      if (known === null) throw error;
      // The engine's own guess (DuckDB's "Did you mean …?") may name a system table such as
      // pg_class; the names the schema lists are the ones to offer, so only they are.
      const engineWords = error.message.replace(/\s*Did you mean [^\n]*\?/gi, '');
      // Right after the sentence naming the unknown name, before any excerpt of the query (LINE 1: … ^).
      const lineEnd = engineWords.indexOf('\n');
      const [first, rest] = lineEnd < 0 ? [engineWords, ''] : [engineWords.slice(0, lineEnd), engineWords.slice(lineEnd)];
      throw new WorkbenchError('unknown-object', `${first} — ${suggestionFor(unknown, known)}${rest}`, { cause: error });
    }
  };
  return Object.assign(Object.create(connector) as Connector, { query, schema: () => connector.schema(), close: () => connector.close() });
}
