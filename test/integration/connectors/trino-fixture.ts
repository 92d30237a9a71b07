import { runTrinoSql } from '../../servers/trino-admin';
import { digestRows } from './contract';
import { tradeNodes, trades } from './fixture-data';

/**
 * The trade-node fixture on the Trino test server, written as its admin: `memory.wb.nodes` and
 * `memory.wb.trades` (Trino has no key constraints), a view, and `lake.sales.orders` in a second
 * catalog. Connect in schema `wb`: `trino://USER@HOST:PORT/memory/wb`.
 */
export async function loadTrinoFixture(adminUri: string): Promise<void> {
  await runTrinoSql(adminUri, [
    'CREATE SCHEMA memory.wb',
    'CREATE TABLE memory.wb.nodes (id integer NOT NULL, name varchar(40) NOT NULL, region varchar(40))',
    `CREATE TABLE memory.wb.trades (id integer NOT NULL, seller_id integer NOT NULL, buyer_id integer NOT NULL, qty integer NOT NULL,
       price decimal(10,2) NOT NULL, traded_on date NOT NULL)`,
    `INSERT INTO memory.wb.nodes VALUES ${tradeNodes.map((n) => `(${n.id}, '${n.name}', '${n.region}')`).join(', ')}`,
    `INSERT INTO memory.wb.trades VALUES ${trades.map((t) => `(${t.id}, ${t.sellerId}, ${t.buyerId}, ${t.qty}, ${t.price}, DATE '${t.tradedOn}')`).join(', ')}`,
    'CREATE SCHEMA lake.sales',
    "CREATE TABLE lake.sales.orders AS SELECT * FROM (VALUES (1, 'north', 12.5), (2, 'south', 7.25)) AS t(id, region, amount)",
    "CREATE VIEW memory.wb.north_nodes AS SELECT id, name FROM memory.wb.nodes WHERE region = 'north'",
  ]);
}

/** Everything a write could change, read as the admin: tables, views, columns, schemas, rows, comments. */
export async function trinoFingerprint(adminUri: string): Promise<string> {
  try {
    const parts = await Promise.all(
      [
        "SELECT table_catalog, table_schema, table_name, table_type FROM memory.information_schema.tables WHERE table_schema <> 'information_schema' ORDER BY 1, 2, 3",
        "SELECT table_catalog, table_schema, table_name, table_type FROM lake.information_schema.tables WHERE table_schema <> 'information_schema' ORDER BY 1, 2, 3",
        "SELECT table_name, column_name, data_type FROM memory.information_schema.columns WHERE table_schema = 'wb' ORDER BY table_name, ordinal_position",
        'SELECT schema_name FROM memory.information_schema.schemata ORDER BY 1',
        'SELECT schema_name FROM lake.information_schema.schemata ORDER BY 1',
        'SELECT id, name, region FROM memory.wb.nodes ORDER BY id',
        'SELECT id, seller_id, buyer_id, qty, CAST(price AS varchar), CAST(traded_on AS varchar) FROM memory.wb.trades ORDER BY id',
        'SELECT id, region, amount FROM lake.sales.orders ORDER BY id',
        "SELECT table_name, comment FROM system.metadata.table_comments WHERE catalog_name = 'memory' AND schema_name = 'wb' ORDER BY 1",
      ].map((sql) => runTrinoSql(adminUri, [sql])),
    );
    return digestRows(parts);
  } catch (error) {
    return `fingerprint failed: ${String(error)}`;
  }
}
