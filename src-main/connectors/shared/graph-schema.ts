import type { SchemaInfo } from '../../contract/data';

/** Runs one Cypher query of the connector's own and returns its rows as plain objects. */
export type GraphReader = (cypher: string) => Promise<Record<string, unknown>[]>;

/** A label or relationship type as the schema browser shows it. */
export type GraphElement = Extract<SchemaInfo, { kind: 'graph' }>['labels'][number];

/** A label or type name as a Cypher identifier (backquoted, so any name is safe). */
export function quoteCypherName(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}

/** A count from the engine (number, bigint or driver Integer) as a number, or null. */
export function toCount(value: unknown): number | null {
  const count = Number(value);
  return Number.isFinite(count) ? count : null;
}
