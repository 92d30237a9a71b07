import { describe, expect, it } from 'vitest';
import type { SchemaInfo } from '../../../src-main/contract';
import { filterSchema } from '../../../src-renderer/connections/schema-filter';

const column = (name: string) => ({ name, type: 'TEXT', nullable: true, primaryKey: 0 });
const relational: SchemaInfo = {
  kind: 'relational',
  tables: [
    { name: 'trade_node', kind: 'table', rowCount: 3, columns: [column('trade_node'), column('local_value')] },
    { name: 'flow', kind: 'table', rowCount: 2, columns: [column('source'), column('dest'), column('flow')] },
    { name: 'country', kind: 'table', rowCount: 1, columns: [column('country'), column('home_node')] },
  ],
};

describe('the schema filter', () => {
  it('keeps a table whose name matches whole, and of the others only the matching columns, opened', () => {
    const { schema, opened } = filterSchema(relational, '  NODE ');
    if (schema.kind !== 'relational') throw new Error('kind changed');
    expect(schema.tables.map((table) => [table.name, table.columns.map((c) => c.name)])).toEqual([
      ['trade_node', ['trade_node', 'local_value']],
      ['country', ['home_node']],
    ]);
    expect([...opened]).toEqual(['country']);
  });

  it('changes nothing when empty and leaves nothing when nothing matches', () => {
    expect(filterSchema(relational, ' ').schema).toBe(relational);
    const none = filterSchema(relational, 'zzz').schema;
    expect(none.kind === 'relational' && none.tables).toEqual([]);
  });

  it('narrows a graph’s labels and relationship types by name or property', () => {
    const graph: SchemaInfo = {
      kind: 'graph',
      labels: [
        { name: 'Node', count: 3, properties: [{ name: 'local_value', type: 'DOUBLE' }] },
        { name: 'Country', count: 1, properties: [{ name: 'home', type: 'STRING' }] },
      ],
      relationshipTypes: [{ name: 'FLOWS', count: 2, properties: [{ name: 'value', type: 'DOUBLE' }], endpoints: ['Node->Node'] }],
    } as SchemaInfo;
    const { schema, opened } = filterSchema(graph, 'value');
    if (schema.kind !== 'graph') throw new Error('kind changed');
    expect(schema.labels.map((label) => label.name)).toEqual(['Node']);
    expect(schema.relationshipTypes.map((type) => type.name)).toEqual(['FLOWS']);
    expect([...opened].sort()).toEqual(['label:Node', 'type:FLOWS']);
  });
});
