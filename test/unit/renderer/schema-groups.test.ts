import { describe, expect, it } from 'vitest';
import type { TableInfo } from '../../../src-main/contract';
import { groupByNamespace, nameInGroup } from '../../../src-renderer/connections/schema-groups';

const table = (name: string, namespace?: string): TableInfo => ({ name, ...(namespace === undefined ? {} : { namespace }), kind: 'table', columns: [], rowCount: null });

describe('the schema browser groups', () => {
  it('lists the default schema first as it is, then one group per other namespace in the order the catalog names them', () => {
    const tables = [table('nodes'), table('lake.sales.orders', 'lake.sales'), table('staging.raw', 'staging'), table('trades'), table('lake.sales.returns', 'lake.sales')];
    const { own, groups } = groupByNamespace(tables);
    expect(own.map((t) => t.name)).toEqual(['nodes', 'trades']);
    expect(groups.map((group) => [group.namespace, group.tables.map(nameInGroup)])).toEqual([
      ['lake.sales', ['orders', 'returns']],
      ['staging', ['raw']],
    ]);
  });

  it('keeps a name whole when it does not start with its namespace, and when it has none', () => {
    expect(nameInGroup(table('orders', 'lake.sales'))).toBe('orders');
    expect(nameInGroup(table('lake.salesorders', 'lake.sales'))).toBe('lake.salesorders');
    expect(nameInGroup(table('a.b'))).toBe('a.b');
  });
});
