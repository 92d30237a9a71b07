/**
 * Generates write and escape attempts systematically: every write statement of a dialect is
 * combined with every disguise that applies to the dialect (comments of each kind and
 * nesting, invisible and unusual leading characters, case, EXPLAIN/PROFILE prefixes, CTE
 * wrapping, multi-statement tails, quoting tricks, the shapes of the issue-17 reproducers).
 * Nothing here knows what the connectors refuse; the suites assert the outcome on the engine.
 */

export type DialectFamily = 'sqlite' | 'duckdb' | 'postgres' | 'mysql' | 'trino' | 'cypher';

export interface Attempt {
  /** `<write name> / <disguise name>`, for failure messages. */
  name: string;
  text: string;
}

export interface Disguise {
  name: string;
  families: readonly DialectFamily[];
  /** `read` is a harmless read of the dialect (`SELECT 1`, or `RETURN 1` in Cypher). */
  apply(write: string, read: string): string;
}

const sql: DialectFamily[] = ['sqlite', 'duckdb', 'postgres', 'mysql', 'trino'];
const all: DialectFamily[] = [...sql, 'cypher'];

/** Changes the case of letters outside quotes only, so paths and names in strings stay intact. */
export function recase(text: string, change: (char: string, index: number) => string): string {
  let quote: string | null = null;
  let out = '';
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index] ?? '';
    if (quote !== null) {
      if (char === quote) quote = null;
      out += char;
    } else if (char === "'" || char === '"' || char === '`') {
      quote = char;
      out += char;
    } else {
      out += change(char, index);
    }
  }
  return out;
}

/** Characters that look like nothing, or like a space, to a reader (and to some engines). */
const invisibleLeads: [string, string][] = [
  ['U+180E mongolian vowel separator', '\u180E'],
  ['U+00A0 no-break space', '\u00A0'],
  ['U+2003 em space', '\u2003'],
  ['U+200B zero width space', '\u200B'],
  ['U+FEFF byte order mark', '\uFEFF'],
  ['U+2028 line separator', '\u2028'],
  ['U+3000 ideographic space', '\u3000'],
  ['U+000B vertical tab', '\u000B'],
  ['U+000C form feed', '\f'],
  ['carriage return', '\r'],
];

export const disguises: Disguise[] = [
  { name: 'plain', families: all, apply: (write) => write },
  { name: 'lower case', families: all, apply: (write) => recase(write, (char) => char.toLowerCase()) },
  { name: 'alternating case', families: all, apply: (write) => recase(write, (char, index) => (index % 2 === 0 ? char.toLowerCase() : char.toUpperCase())) },
  { name: 'leading spaces, tabs and newlines', families: all, apply: (write) => ` \t\n  ${write}` },
  ...invisibleLeads.map(([name, char]): Disguise => ({ name: `leading ${name}`, families: all, apply: (write) => `${char}${write}` })),
  { name: 'U+180E between comment and write', families: all, apply: (write) => `/* x */\u180E${write}` },
  { name: 'block comment before', families: all, apply: (write) => `/* SELECT */ ${write}` },
  { name: 'nested block comment before', families: all, apply: (write) => `/* /* SELECT */ */ ${write}` },
  { name: 'half-nested block comment hiding a SELECT', families: all, apply: (write) => `/* /* */ SELECT 1 /* */ ${write}` },
  { name: '-- comment ended by a carriage return', families: sql, apply: (write) => `-- SELECT\r${write}` },
  { name: '-- comment ended by a newline', families: sql, apply: (write) => `-- SELECT\n${write}` },
  { name: '-- CR comment with a SELECT after a newline', families: sql, apply: (write) => `-- a\r${write} /* \nSELECT 1 -- */` },
  { name: '# comment (MySQL)', families: ['mysql'], apply: (write) => `# SELECT\n${write}` },
  { name: 'MySQL versioned comment', families: ['mysql'], apply: (write) => `/*!00000 ${write} */` },
  { name: '// comment', families: ['cypher'], apply: (write) => `// MATCH (n) RETURN n\n${write}` },
  { name: '// comment ended by a carriage return', families: ['cypher'], apply: (write) => `// x\r${write}\nMATCH (n) RETURN n` },
  { name: 'EXPLAIN', families: all, apply: (write) => `EXPLAIN ${write}` },
  { name: 'EXPLAIN ANALYZE', families: ['duckdb', 'postgres', 'mysql', 'trino'], apply: (write) => `EXPLAIN ANALYZE ${write}` },
  { name: 'EXPLAIN QUERY PLAN', families: ['sqlite'], apply: (write) => `EXPLAIN QUERY PLAN ${write}` },
  { name: 'PROFILE', families: ['cypher'], apply: (write) => `PROFILE ${write}` },
  { name: 'EXPLAIN after a comment', families: all, apply: (write) => `/* c */ EXPLAIN ${write}` },
  // Trino's own shapes: EXPLAIN options before the write, a write inside EXECUTE IMMEDIATE.
  { name: 'EXPLAIN with options', families: ['trino'], apply: (write) => `EXPLAIN (TYPE IO, FORMAT JSON) ${write}` },
  { name: 'EXPLAIN ANALYZE VERBOSE', families: ['trino'], apply: (write) => `EXPLAIN ANALYZE VERBOSE ${write}` },
  { name: 'EXECUTE IMMEDIATE', families: ['trino'], apply: (write) => `EXECUTE IMMEDIATE '${write.replaceAll("'", "''")}'` },
  {
    name: 'issue-17 DuckDB shape (nested comment, dollar string)',
    families: ['duckdb', 'postgres', 'sqlite'],
    apply: (write) => `/* /* */ EXPLAIN ANALYZE SELECT $$*/ EXPLAIN ANALYZE ${write} -- $$`,
  },
  { name: 'after a read and a semicolon', families: all, apply: (write, read) => `${read}; ${write}` },
  { name: 'after a read, semicolon and newline', families: sql, apply: (write) => `SELECT 1;\n${write}` },
  { name: 'after a string holding a semicolon', families: sql, apply: (write) => `SELECT ';'; ${write}` },
  { name: 'after a comment holding a semicolon', families: sql, apply: (write) => `SELECT 1 /* ; */; ${write}` },
  { name: 'before a read', families: all, apply: (write, read) => `${write}; ${read}` },
  { name: 'after a dollar-quoted string', families: ['postgres', 'duckdb'], apply: (write) => `SELECT $$x$$; ${write}` },
  { name: 'CTE in front', families: ['sqlite', 'duckdb', 'postgres', 'mysql', 'trino'], apply: (write) => `WITH x AS (SELECT 1) ${write}` },
  { name: 'in parentheses', families: sql, apply: (write) => `(${write})` },
  { name: 'WITH in front (Cypher)', families: ['cypher'], apply: (write) => `WITH 1 AS x ${write}` },
  // Cypher's own prefixes and shapes: a version or runtime prefix, a write after a read in one
  // query, a write reached through UNION or an OPTIONAL MATCH, and Unicode spaces where the
  // first space belongs (Neo4j's lexer takes several as whitespace).
  { name: 'CYPHER version prefix', families: ['cypher'], apply: (write) => `CYPHER 5 ${write}` },
  { name: 'CYPHER runtime prefix', families: ['cypher'], apply: (write) => `CYPHER runtime=slotted ${write}` },
  { name: 'EXPLAIN after the CYPHER prefix', families: ['cypher'], apply: (write) => `CYPHER 5 EXPLAIN ${write}` },
  { name: 'after OPTIONAL MATCH … WITH', families: ['cypher'], apply: (write) => `OPTIONAL MATCH (z:Nothing) WITH z ${write}` },
  { name: 'UNION with a read', families: ['cypher'], apply: (write, read) => `${read} AS x UNION ${write} RETURN 1 AS x` },
  { name: 'trailing // comment holding a read', families: ['cypher'], apply: (write) => `${write} // RETURN 1` },
  { name: 'block comment holding a quote and a semicolon', families: ['cypher'], apply: (write) => `/* '; RETURN 1 */ ${write}` },
  ...(['\u00A0', '\u2029', '\u3000'] as const).map(
    (space): Disguise => ({ name: `first space as U+${space.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`, families: ['cypher'], apply: (write) => write.replace(' ', space) }),
  ),
];

/** Every write combined with every disguise of its family (the reads a disguise adds are harmless). */
export function generateAttempts(family: DialectFamily, writes: Record<string, string>): Attempt[] {
  const attempts: Attempt[] = [];
  for (const [writeName, write] of Object.entries(writes)) {
    for (const disguise of disguises) {
      if (!disguise.families.includes(family)) continue;
      attempts.push({ name: `${writeName} / ${disguise.name}`, text: disguise.apply(write, family === 'cypher' ? 'RETURN 1' : 'SELECT 1') });
    }
  }
  return attempts;
}
