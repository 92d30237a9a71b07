import { describe, expect, it } from 'vitest';

import { sqlCompletions } from '../../../src-renderer/editor/sql-completion';
import type { SchemaInfo } from '../../../src-main/contract';

/** Names as a Trino connection in `memory.wb` reports them, and a PostgreSQL-style `schema.table`. */
const schema: Extract<SchemaInfo, { kind: 'relational' }> = {
  kind: 'relational',
  tables: [
    { name: 'nodes', kind: 'table', rowCount: 5, columns: [{ name: 'id', type: 'integer', nullable: false, primaryKey: 0 }, { name: 'name', type: 'varchar(40)', nullable: false, primaryKey: 0 }] },
    { name: 'other.notes', kind: 'view', rowCount: null, columns: [{ name: 'body', type: 'varchar', nullable: true, primaryKey: 0 }] },
    { name: 'lake.sales.orders', kind: 'table', rowCount: null, columns: [{ name: 'amount', type: 'decimal(4,2)', nullable: true, primaryKey: 0 }] },
    { name: 'lake.we"ird-one.t', kind: 'table', rowCount: null, columns: [{ name: 'Mixed Case', type: 'bigint', nullable: true, primaryKey: 0 }] },
  ],
};

const at = (before: string, text = before): { label: string; kind: string; insertText: string }[] =>
  sqlCompletions(schema, { before, text }).map(({ label, kind, insertText }) => ({ label, kind, insertText }));

describe('SQL completion along dotted names', () => {
  it('offers the first part of every name, whole names, then every column', () => {
    expect(at('SELECT * FROM ').map((item) => `${item.kind}:${item.label}`)).toEqual([
      'table:nodes',
      'schema:other',
      'view:other.notes',
      'catalog:lake',
      'table:lake.sales.orders',
      'table:lake.we"ird-one.t',
      'column:id',
      'column:name',
      'column:body',
      'column:amount',
      'column:Mixed Case',
    ]);
  });

  it('goes part by part, quoting a part plain SQL would not read, and reads a quoted part back', () => {
    expect(at('FROM lake.')).toEqual([
      { label: 'sales', kind: 'schema', insertText: 'sales' },
      { label: 'we"ird-one', kind: 'schema', insertText: '"we""ird-one"' },
    ]);
    expect(at('FROM LAKE . "we""ird-one".')).toEqual([{ label: 't', kind: 'table', insertText: 't' }]);
    expect(at('SELECT lake."we""ird-one".t.')).toEqual([{ label: 'Mixed Case', kind: 'column', insertText: '"Mixed Case"' }]);
  });

  it('quotes with backticks on MySQL and MariaDB, where double quotes make a string, and reads a backticked part back', () => {
    const mysql = (before: string) => sqlCompletions(schema, { before, text: before }, '`').map(({ label, insertText }) => ({ label, insertText }));
    expect(mysql('FROM lake.')).toEqual([
      { label: 'sales', insertText: 'sales' },
      { label: 'we"ird-one', insertText: '`we"ird-one`' },
    ]);
    expect(mysql('SELECT `lake`.`we"ird-one`.t.')).toEqual([{ label: 'Mixed Case', insertText: '`Mixed Case`' }]);
  });

  it('completes the columns of an alias, skipping patterns that name no table', () => {
    expect(at('SELECT o.', 'SELECT o. FROM lake.sales.orders AS o')).toEqual([{ label: 'amount', kind: 'column', insertText: 'amount' }]);
    expect(at('SELECT n.', 'SELECT n. FROM nodes n')).toEqual([
      { label: 'id', kind: 'column', insertText: 'id' },
      { label: 'name', kind: 'column', insertText: 'name' },
    ]);
    expect(at('SELECT x.', 'SELECT x. FROM nodes n')).toEqual([]);
  });

  it('takes a path that ends with a table name as that table (the connection schema spelled out)', () => {
    expect(at('SELECT memory.wb.nodes.').map((item) => item.label)).toEqual(['id', 'name']);
  });
});
