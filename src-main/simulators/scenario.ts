import type { SchemaInfo } from '../contract/data';
import type { Scenario } from '../contract/simulation';

const signatures: Record<Scenario, { tables: string[]; labels: string[] }> = {
  locating: { tables: ['country', 'trade_node', 'flow', 'node_country'], labels: ['Country', 'Trade_node'] },
  building: { tables: ['goods', 'building', 'supply', 'demand'], labels: ['Goods', 'Building'] },
};

/** Which simulator, if any, fits a database: by the tables (or labels) its rules are about. */
export function recogniseScenario(schema: SchemaInfo): Scenario | null {
  const names = new Set(
    (schema.kind === 'relational' ? schema.tables.map((table) => table.name) : schema.labels.map((label) => label.name)).map((name) => name.toLowerCase()),
  );
  for (const [scenario, signature] of Object.entries(signatures) as [Scenario, { tables: string[]; labels: string[] }][]) {
    const wanted = schema.kind === 'relational' ? signature.tables : signature.labels;
    if (wanted.every((name) => names.has(name.toLowerCase()))) return scenario;
  }
  return null;
}
