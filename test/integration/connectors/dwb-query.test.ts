
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { endlessSqliteQuery } from '../../support/fixtures';
import { useSuiteTempDir } from '../../support/temp';
import { startMariadb, startNeo4j, startPostgres, whyMariadbUnavailable, whyNeo4jUnavailable, whyPostgresUnavailable, type TestServer } from '../../servers';
import { describeOrNotRun } from '../../servers/not-run';
import { tradeNodes } from './fixture-data';
import { loadMysqlFixture, loadNeo4jFixture, loadPostgresFixture, writeFileFixtures } from './fixture-loaders';
import { passwordApart, runDwb } from '../../support/cli';

/**
 * `dwb query` on every kind of URI, through the real CLI (bin/dwb.js, built by
 * `electron-vite build`) against real files and real servers from test/servers.
 */

const suiteDir = useSuiteTempDir();
/**
 * `dwb query … --connection URI …` as a user runs it: a server URI's password goes through
 * DWB_DB_PASSWORD (the CLI refuses one in argv), a file URI as it is.
 */
const query = (uri: string, ...args: string[]) => {
  const apart = passwordApart(uri);
  return runDwb(['query', '--connection', apart.uri, ...args], { env: apart.env });
};


const sql = {
  names: 'SELECT name FROM nodes ORDER BY id',
  write: 'DELETE FROM nodes',
  syntax: 'SELEC name FROM nodes',
};
const cypher = {
  names: 'MATCH (n:Node) RETURN n.name AS name ORDER BY n.id',
  write: 'MATCH (n) DETACH DELETE n',
  syntax: 'MATCH (n RETURN n',
};

interface Kind {
  name: string;
  unavailable: string | null;
  /** Known once the fixture is in place (beforeAll). */
  uri: () => string;
  queries: typeof sql;
  slow: string;
}

const servers: { postgres: TestServer | null; mariadb: TestServer | null; neo4j: TestServer | null } = { postgres: null, mariadb: null, neo4j: null };
const files = { sqlite: '', duckdb: '', csv: '', parquet: '', kuzu: '' };

const kinds: Kind[] = [
  { name: 'sqlite', unavailable: null, uri: () => `sqlite:${files.sqlite}`, queries: sql, slow: endlessSqliteQuery },
  { name: 'duckdb', unavailable: null, uri: () => `duckdb:${files.duckdb}`, queries: sql, slow: 'SELECT count(*) FROM range(100000000000) AS a' },
  { name: 'csv', unavailable: null, uri: () => `csv:${files.csv}`, queries: sql, slow: 'SELECT count(*) FROM range(100000000000) AS a' },
  { name: 'parquet', unavailable: null, uri: () => `parquet:${files.parquet}`, queries: sql, slow: 'SELECT count(*) FROM range(100000000000) AS a' },
  { name: 'kuzu', unavailable: null, uri: () => `kuzu:${files.kuzu}`, queries: cypher, slow: 'UNWIND range(1, 100000) AS x UNWIND range(1, 100000) AS y RETURN sum(x * y)' },
  // The test servers' URIs carry the password; `query` hands it to the CLI through DWB_DB_PASSWORD.
  { name: 'postgres', unavailable: whyPostgresUnavailable(), uri: () => servers.postgres?.uri ?? '', queries: sql, slow: 'SELECT pg_sleep(60)' },
  { name: 'mysql (MariaDB)', unavailable: whyMariadbUnavailable(), uri: () => servers.mariadb?.uri ?? '', queries: sql, slow: 'SELECT SLEEP(60)' },
  {
    name: 'neo4j',
    unavailable: whyNeo4jUnavailable(),
    // The login goes in the URI too; the connector sends it apart from the URL.
    uri: () => {
      const server = servers.neo4j;
      return server === null ? '' : server.uri.replace('bolt://', `bolt://${server.username}:${server.password}@`);
    },
    queries: cypher,
    slow: 'UNWIND range(1, 2000000000) AS x WITH x WHERE x % 7 = 0 RETURN count(x)',
  },
];

beforeAll(async () => {
  Object.assign(files, await writeFileFixtures(suiteDir()));
  const [postgres, mariadb, neo4j] = await Promise.all([
    whyPostgresUnavailable() === null ? startPostgres() : null,
    whyMariadbUnavailable() === null ? startMariadb() : null,
    whyNeo4jUnavailable() === null ? startNeo4j() : null,
  ]);
  Object.assign(servers, { postgres, mariadb, neo4j });
  if (postgres !== null) await loadPostgresFixture(postgres.uri);
  if (mariadb !== null) await loadMysqlFixture(mariadb.uri);
  if (neo4j !== null) await loadNeo4jFixture(neo4j.uri, neo4j.username, neo4j.password);
}, 240_000);

afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server?.stop()));
}, 60_000);

/** Failures print exactly one line on stderr: `dwb query: CODE: message`. */
function expectOneLineFailure(result: { code: number; stderr: string }, code: string): void {
  expect(result.code, result.stderr).not.toBe(0);
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^dwb query: ${code}: `));
}

for (const kind of kinds) {
  describeOrNotRun(`dwb query on ${kind.name}`, kind.unavailable, () => {
    it('answers with the rows as JSON lines', async () => {
      const result = await query(kind.uri(), '--json', kind.queries.names);
      expect(result.code, result.stderr).toBe(0);
      const names = result.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { name: string }).name);
      expect(names).toEqual(tradeNodes.map((node) => node.name));
    });

    it('streams CSV with --format csv, the count on stderr', async () => {
      const result = await query(kind.uri(), '--format', 'csv', kind.queries.names);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe(`name\n${tradeNodes.map((node) => node.name).join('\n')}\n`);
      expect(result.stderr.trim()).toBe(`(${tradeNodes.length} rows)`);
    });

    it('prints an aligned table by default', async () => {
      const result = await query(kind.uri(), kind.queries.names);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.split('\n').slice(0, 3).map((line) => line.trimEnd())).toEqual(['name', '---------', 'Rotterdam']);
      expect(result.stderr.trim()).toBe(`(${tradeNodes.length} rows)`);
    });

    it('refuses a write with one line, and the data stays', async () => {
      expectOneLineFailure(await query(kind.uri(), kind.queries.write), 'read-only');
      const after = await query(kind.uri(), '--json', kind.queries.names);
      expect(after.stdout.trim().split('\n')).toHaveLength(tradeNodes.length);
    });

    it('reports a syntax error with one line', async () => {
      const result = await query(kind.uri(), kind.queries.syntax);
      expectOneLineFailure(result, '(syntax|query-failed)');
    });

    it('stops a slow query at --timeout-ms with one line', async () => {
      const started = Date.now();
      expectOneLineFailure(await query(kind.uri(), '--timeout-ms', '1500', kind.slow), 'timeout');
      expect(Date.now() - started).toBeLessThan(30_000);
    }, 60_000);
  });
}

describe('dwb query refuses what it cannot open, with one line', () => {
  const cases: [string, string, string][] = [
    ['an unknown scheme', 'oracle://db.example/x', 'invalid-uri'],
    ['a server URI without a host', 'postgres://', 'invalid-uri'],
    ['a missing SQLite file', 'sqlite:/nonexistent/dir/x.sqlite', 'not-found'],
    ['a missing DuckDB file', 'duckdb:/nonexistent/dir/x.duckdb', 'not-found'],
    ['a missing CSV file', 'csv:/nonexistent/dir/x.csv', 'not-found'],
    ['a missing Kùzu database', 'kuzu:/nonexistent/dir/x.kuzu', 'not-found'],
    ['an unreachable PostgreSQL server', 'postgres://wb@127.0.0.1:1/db', 'connection-failed'],
    ['an unreachable MySQL server', 'mysql://wb@127.0.0.1:1/db', 'connection-failed'],
    ['an unreachable Neo4j server (neo4j://)', 'neo4j://127.0.0.1:1', 'connection-failed'],
    ['an unreachable Neo4j server (bolt://)', 'bolt://127.0.0.1:1', 'connection-failed'],
  ];
  it.each(cases)('%s', async (_, uri, code) => {
    expectOneLineFailure(await query(uri, 'SELECT 1'), code);
  });
});

describeOrNotRun('dwb query with a wrong password', whyPostgresUnavailable(), () => {
  it('says the login failed, in one line', async () => {
    const uri = (servers.postgres?.uri ?? '').replace(/:[^:@/]+@/, ':wrong-password@');
    const result = await query(uri, 'SELECT 1');
    expectOneLineFailure(result, 'connection-failed');
    expect(result.stderr).toContain('password authentication failed');
    expect(result.stderr).not.toContain('wrong-password');
  });
});

// Issue 26, item 5: a MariaDB login with FILE or write privileges connected without a word.
describeOrNotRun('dwb query with a privileged MariaDB login', whyMariadbUnavailable(), () => {
  it('refuses it in one line naming its rights and how to make a read-only login', async () => {
    const result = await query(servers.mariadb?.adminUri ?? '', 'SELECT 1');
    expectOneLineFailure(result, 'read-only');
    expect(result.stderr).toContain('refusing to connect as wb@127.0.0.1 (ALL PRIVILEGES on *.*, GRANT OPTION on *.*)');
    expect(result.stderr).toContain("GRANT SELECT, SHOW VIEW ON mydb.* TO 'dwb_reader'@'%'");
  });

  it('connects with allow_privileged=1 and warns on stderr', async () => {
    const url = new URL(servers.mariadb?.adminUri ?? '');
    url.searchParams.set('allow_privileged', '1');
    const result = await query(url.toString(), '--json', 'SELECT 1 AS one');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('{"one":1}');
    expect(result.stderr).toMatch(/^WARNING: connected as privileged MySQL login wb@127\.0\.0\.1 \(ALL PRIVILEGES on \*\.\*/);
  });
});

// Issue 17: a superuser login made the function deny-list the only barrier.
describeOrNotRun('dwb query with a privileged PostgreSQL login', whyPostgresUnavailable(), () => {
  it('refuses a superuser login in one line that says how to make a read-only role', async () => {
    const result = await query(servers.postgres?.adminUri ?? '', 'SELECT 1');
    expectOneLineFailure(result, 'read-only');
    expect(result.stderr).toContain('refusing to connect as "wb"');
    expect(result.stderr).toContain('GRANT pg_read_all_data TO dwb_reader');
  });

  it('connects with allow_privileged=1 and warns on stderr', async () => {
    const url = new URL(servers.postgres?.adminUri ?? '');
    url.searchParams.set('allow_privileged', '1');
    const result = await query(url.toString(), '--json', 'SELECT 1 AS one');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('{"one":1}');
    expect(result.stderr).toMatch(/^WARNING: connected as privileged PostgreSQL role "wb" \(SUPERUSER/);
  });
});
