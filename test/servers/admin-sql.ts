import { mariadbAdminUri } from './mariadb';

/**
 * Admin SQL on a test server, outside the workbench's read-only connectors: to create the
 * data a suite needs and to read the server's own row checksums before and after a run.
 * Rows come back as arrays; MariaDB keeps big numbers, decimals and dates as strings.
 */
export async function postgresAdmin(uri: string, statements: string[]): Promise<unknown[][]> {
  const pg = await import('pg');
  const client = new pg.default.Client({ connectionString: uri });
  await client.connect();
  try {
    let rows: unknown[][] = [];
    for (const text of statements) rows = (await client.query({ text, rowMode: 'array' })).rows as unknown[][];
    return rows;
  } finally {
    await client.end();
  }
}

/** Runs as the server's privileged login on the database `uri` names, whichever login `uri` carries. */
export async function mariadbAdmin(uri: string, statements: string[]): Promise<unknown[][]> {
  const mysql = await import('mysql2/promise');
  const connection = await mysql.createConnection({ uri: mariadbAdminUri(uri), supportBigNumbers: true, bigNumberStrings: true, dateStrings: true });
  try {
    let rows: unknown[][] = [];
    for (const text of statements) [rows] = (await connection.query({ sql: text, rowsAsArray: true })) as unknown as [unknown[][]];
    return rows;
  } finally {
    await connection.end();
  }
}

/** The same URL on another database of the server. */
export function withDatabase(uri: string, database: string): string {
  const url = new URL(uri);
  url.pathname = `/${database}`;
  return url.toString();
}
