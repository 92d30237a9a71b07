import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openSqliteConnector } from '../../../src-main/connectors/sqlite/sqlite-connector';
import { sampleTables, summarizeSchema } from '../../../src-main/engine/schema-summary';
import { useCleanups } from '../../support/lifecycle';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();
const onCleanup = useCleanups();

/** A real SQLite file whose columns declare no type (as many imported files do), with one large table among small ones. */
function untypedDatabase(): string {
  const path = join(tempDir(), 'untyped.sqlite');
  const db = new Database(path);
  db.exec(`CREATE TABLE warehouse (id PRIMARY KEY, city, capacity, note);
    INSERT INTO warehouse VALUES (1, 'Lyon', 12.5, '${'a very long note '.repeat(10)}'), (2, 'Porto', 7, NULL), (3, 'Graz', 3.25, 'x'), (4, 'Oslo', 1, 'y');
    CREATE TABLE shipment (id INTEGER PRIMARY KEY, warehouse_id INTEGER REFERENCES warehouse(id), weight REAL);
    INSERT INTO shipment VALUES (1, 1, 2.5), (2, 2, 4);`);
  for (let index = 0; index < 60; index++) db.exec(`CREATE TABLE audit_${index} (${Array.from({ length: 12 }, (_, column) => `column_${column} TEXT`).join(', ')})`);
  db.close();
  return path;
}

describe('the schema summary the model reads', () => {
  it('types untyped columns from their values and shows three sample rows per table, long values clipped', async () => {
    const connector = openSqliteConnector({ path: untypedDatabase() });
    onCleanup(() => connector.close());
    const schema = await connector.schema();
    const samples = await sampleTables(connector, schema, 'Which warehouse should close?');
    expect(samples.size).toBe(40); // bounded, the named table first although 60 others sort before it
    const summary = summarizeSchema(schema, 100_000, { samples });
    expect(summary).toContain('TABLE warehouse — 4 rows\n  id INTEGER PK\n  city TEXT\n  capacity REAL\n  note TEXT');
    const warehouse = summary.slice(summary.indexOf('TABLE warehouse'), summary.indexOf('TABLE', summary.indexOf('TABLE warehouse') + 1));
    expect(warehouse).toContain('sample rows (id | city | capacity | note):');
    expect(warehouse).toContain('2 | Porto | 7 | NULL');
    expect(warehouse).not.toContain('Oslo'); // three rows, not four
    expect(warehouse).toContain(`1 | Lyon | 12.5 | ${'a very long note '.repeat(10).slice(0, 40)}…`);
  });

  it('reduces a large schema to the tables the question names (and those they reference), listing the rest', async () => {
    const connector = openSqliteConnector({ path: untypedDatabase() });
    onCleanup(() => connector.close());
    const schema = await connector.schema();
    const question = 'Which shipment is the heaviest?';
    const samples = await sampleTables(connector, schema, question);
    const summary = summarizeSchema(schema, 6000, { samples, question });
    expect(summary).toContain('1 | 1 | 2.5');
    expect(summary.length).toBeLessThanOrEqual(6000);
    expect(summary).toContain('TABLE shipment — 2 rows');
    expect(summary).toContain('warehouse_id INTEGER → warehouse.id');
    expect(summary).toContain('TABLE warehouse — 4 rows');
    expect(summary).toMatch(/Other tables: audit_0 — 0 rows; audit_1 — 0 rows;/);
    expect(summary).not.toContain('column_0');
  });
});
