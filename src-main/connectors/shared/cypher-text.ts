/**
 * Text-level helpers shared by the two Cypher connectors (Neo4j and LadybugDB). They never decide
 * what is allowed; the engines' planners do (see each connector's plan-check.ts).
 */

/** Whitespace and comments before a statement's first word. */
export const leadingCypherNoise = /^(?:\s|\/\/[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*/;

export const explainPrefix = 'EXPLAIN ';

/**
 * The text to plan: the query itself prefixed with EXPLAIN. A query that already starts with
 * EXPLAIN is planned as is; one that starts with PROFILE (which executes) is planned with
 * EXPLAIN in its place (same length, so error positions stay right).
 */
export function explainTextFor(text: string): string {
  const leading = leadingCypherNoise.exec(text)?.[0] ?? '';
  const rest = text.slice(leading.length);
  if (/^EXPLAIN\b/i.test(rest)) return text;
  if (/^PROFILE\b/i.test(rest)) return `${leading}EXPLAIN${rest.slice('PROFILE'.length)}`;
  return `${explainPrefix}${text}`;
}
