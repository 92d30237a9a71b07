import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import { DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import neo4j from 'neo4j-driver';
import pg from 'pg';

import { graphFixtureCypher, relationalFixtureSql, tradeNodes, trades } from './fixture-data';
import { mariadbAdminUri } from '../../servers/mariadb';

/**
 * Writes the trade-node fixture (see fixture-data.ts) into each engine through its own
 * writable driver: the connectors under test only ever read.
 */

export function writeSqliteFixture(path: string): void {
  const database = new Database(path);
  try {
    for (const sql of relationalFixtureSql({ decimal: 'REAL', date: 'TEXT', text: 'TEXT' })) database.exec(sql);
  } finally {
    database.close();
  }
}

/** A DuckDB file with the fixture, and (when asked) the nodes table exported as CSV and Parquet. */
export async function writeDuckdbFixture(path: string, exports: { csv?: string; parquet?: string } = {}): Promise<void> {
  const writer = await DuckDBInstance.create(path);
  try {
    const connection = await writer.connect();
    for (const sql of relationalFixtureSql({ decimal: 'DECIMAL(10,2)', date: 'DATE', text: 'VARCHAR' })) await connection.run(sql);
    if (exports.csv !== undefined) await connection.run(`COPY nodes TO '${exports.csv}' (HEADER)`);
    if (exports.parquet !== undefined) await connection.run(`COPY nodes TO '${exports.parquet}' (FORMAT parquet)`);
    connection.closeSync();
  } finally {
    writer.closeSync();
  }
}

export function cypherLiteral(value: string | number): string {
  return typeof value === 'number' ? String(value) : `'${value.replace(/'/g, "\\'")}'`;
}

/**
 * A Kùzu database with the fixture, written by a separate Node process: Kùzu's Node binding
 * can crash a process that explicitly closed a Database once the garbage collector finalises it.
 */
export function writeLadybugFixture(path: string): void {
  const statements = [
    'CREATE NODE TABLE Node(id INT64 PRIMARY KEY, name STRING, region STRING)',
    'CREATE REL TABLE TRADES(FROM Node TO Node, id INT64, qty INT64, price DOUBLE, tradedOn DATE)',
    ...tradeNodes.map((node) => `CREATE (:Node {id: ${node.id}, name: ${cypherLiteral(node.name)}, region: ${cypherLiteral(node.region)}})`),
    ...trades.map(
      (trade) =>
        `MATCH (s:Node {id: ${trade.sellerId}}), (b:Node {id: ${trade.buyerId}}) ` +
        `CREATE (s)-[:TRADES {id: ${trade.id}, qty: ${trade.qty}, price: ${trade.price}, tradedOn: date(${cypherLiteral(trade.tradedOn)})}]->(b)`,
    ),
  ];
  runLadybugStatements(path, statements);
}

/** Creates (or opens) the Kùzu database at `path` and runs `statements` in order, in a child process. */
export function runLadybugStatements(path: string, statements: readonly string[]): void {
  const script = `
    const lbug = require(${JSON.stringify(require.resolve('@ladybugdb/core'))});
    (async () => {
      const database = new lbug.Database(${JSON.stringify(path)}, 64 * 1024 * 1024);
      const connection = new lbug.Connection(database);
      for (const statement of ${JSON.stringify(statements)}) await connection.query(statement);
      process.exit(0);
    })().catch((error) => { console.error(error); process.exit(1); });`;
  execFileSync(process.execPath, ['-e', script], { stdio: 'inherit' });
}

export async function loadPostgresFixture(uri: string): Promise<void> {
  const client = new pg.Client({ connectionString: uri });
  await client.connect();
  try {
    for (const sql of relationalFixtureSql({ decimal: 'NUMERIC(10,2)', date: 'DATE', text: 'VARCHAR(40)' })) await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Creates the fixture tables as the test server's privileged login, whichever login `uri` carries. */
export async function loadMysqlFixture(uri: string): Promise<void> {
  const connection = await mysql.createConnection({ uri: mariadbAdminUri(uri) });
  try {
    for (const sql of relationalFixtureSql({ decimal: 'DECIMAL(10,2)', date: 'DATE', text: 'VARCHAR(40)' })) await connection.query(sql);
  } finally {
    await connection.end();
  }
}

export async function loadNeo4jFixture(uri: string, username: string, password: string): Promise<void> {
  const driver = neo4j.driver(uri, neo4j.auth.basic(username, password));
  const session = driver.session();
  try {
    const cypher = graphFixtureCypher();
    await session.run(cypher.nodes, { rows: tradeNodes.map((node) => ({ ...node, id: neo4j.int(node.id) })) });
    await session.run(cypher.trades, {
      rows: trades.map((trade) => ({ ...trade, id: neo4j.int(trade.id), sellerId: neo4j.int(trade.sellerId), buyerId: neo4j.int(trade.buyerId), qty: neo4j.int(trade.qty) })),
    });
  } finally {
    await session.close();
    await driver.close();
  }
}

/** The fixture in every file engine, written into `dir`: the paths by kind (CSV and Parquet hold the nodes table). */
export async function writeFileFixtures(dir: string): Promise<{ sqlite: string; duckdb: string; csv: string; parquet: string; kuzu: string }> {
  const paths = {
    sqlite: join(dir, 'trades.sqlite'),
    duckdb: join(dir, 'trades.duckdb'),
    csv: join(dir, 'nodes.csv'),
    parquet: join(dir, 'nodes.parquet'),
    kuzu: join(dir, 'trades.kuzu'),
  };
  writeSqliteFixture(paths.sqlite);
  await writeDuckdbFixture(paths.duckdb, { csv: paths.csv, parquet: paths.parquet });
  writeLadybugFixture(paths.kuzu);
  return paths;
}
