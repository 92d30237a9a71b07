import type { ConnectionTarget, ConnectionTestReport } from '../contract/connections';
import type { SchemaInfo } from '../contract/data';
import { WorkbenchError } from '../contract/errors';
import { openConnector } from './open-connector';
import { normalizeTarget } from './target-check';

/** Counts a schema browser would show, summed. */
function countsOf(schema: SchemaInfo): NonNullable<ConnectionTestReport['counts']> {
  const sum = (values: (number | null)[]): number => values.reduce<number>((total, value) => total + (value ?? 0), 0);
  if (schema.kind === 'relational') {
    return { tables: schema.tables.length, rows: sum(schema.tables.map((table) => table.rowCount)) };
  }
  return {
    labels: schema.labels.length,
    nodes: sum(schema.labels.map((label) => label.count)),
    relationshipTypes: schema.relationshipTypes.length,
    relationships: sum(schema.relationshipTypes.map((type) => type.count)),
  };
}

function plural(count: number, word: string): string {
  return `${count.toLocaleString('en-US')} ${word}${count === 1 ? '' : 's'}`;
}

function describe(counts: NonNullable<ConnectionTestReport['counts']>): string {
  if (counts.tables !== undefined) return `Connected: ${plural(counts.tables, 'table')}, ${plural(counts.rows ?? 0, 'row')}`;
  return `Connected: ${plural(counts.labels ?? 0, 'label')} (${plural(counts.nodes ?? 0, 'node')}), ${plural(counts.relationshipTypes ?? 0, 'relationship type')} (${plural(counts.relationships ?? 0, 'relationship')})`;
}

/**
 * Opens a target, reads its schema and closes it again. Never throws for a connection that
 * fails: the report carries the engine's own message and the error code instead.
 */
export async function testConnection(target: ConnectionTarget, password: string | null): Promise<ConnectionTestReport> {
  const started = performance.now();
  try {
    const connector = await openConnector(await normalizeTarget(target), password);
    try {
      const counts = countsOf(await connector.schema());
      const warnings = connector.warnings ?? [];
      // A warning leads the message, so a form that shows only the message still shows it.
      const message = [...warnings, describe(counts)].join(' — ');
      return { ok: true, elapsedMs: performance.now() - started, message, counts, ...(warnings.length > 0 ? { warnings: [...warnings] } : {}) };
    } finally {
      await connector.close();
    }
  } catch (caught) {
    const error = WorkbenchError.from(caught);
    return { ok: false, elapsedMs: performance.now() - started, message: error.message, code: error.code };
  }
}
