/**
 * Benchmark of the what-if sandbox: `npm run bench:whatif`. On the bundled Building demo
 * (SQLite, 251 buildings) it prints, for growing candidate counts, the whole run's time, the
 * fixed cost of one run (hash, copy, worker start, statement checks: the run with one
 * candidate) and the marginal cost per candidate; then, on a synthetic database of about
 * 20 MiB, how the fixed cost grows with the file (hashing and copying are linear in its size);
 * then, when PostgreSQL is installed, the same on a throwaway server (started as the tests
 * start theirs), where the named tables are read into a local DuckDB copy.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSqlDump } from '../src-main/dqa/sql-dump';
import { writeSqliteDatabase } from '../src-main/dqa/sqlite-import';
import { openSqliteFile } from '../src-main/native/better-sqlite3';
import { openConnectionUri, parseConnectionUri } from '../src-main/connectors/connection-uri';
import { runWhatIf, runWhatIfOnConnection, type Candidate } from '../src-main/whatif';
import { serverTablesSource } from '../src-main/whatif/server-snapshot';
import { startPostgres, whyPostgresUnavailable } from '../test/servers';
import { importRelationalDump } from '../test/servers/import-dump';

const REPEATS = 3;

async function fastest(run: () => Promise<unknown>): Promise<number> {
  let best = Infinity;
  for (let index = 0; index < REPEATS; index += 1) {
    const started = performance.now();
    await run();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

const demoDump = join(__dirname, '..', 'resources', 'demo', 'building-USA1836.sql');

function demoBuilding(directory: string): string {
  const path = join(directory, 'building.sqlite');
  const dump = demoDump;
  writeSqliteDatabase(parseSqlDump(readFileSync(dump, 'utf8'), dump), path);
  return path;
}

function syntheticDatabase(directory: string, rows: number): string {
  const path = join(directory, 'synthetic.sqlite');
  const database = openSqliteFile(path);
  database.exec('CREATE TABLE account (id INTEGER PRIMARY KEY, region INTEGER NOT NULL, balance REAL NOT NULL, note TEXT)');
  const insert = database.prepare('INSERT INTO account VALUES (?, ?, ?, ?)');
  database.transaction(() => {
    for (let id = 1; id <= rows; id += 1) insert.run(id, id % 50, (id * 7919) % 10_000, `account ${id} of the synthetic benchmark`);
  })();
  database.close();
  return path;
}

async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'dwb-bench-whatif-'));
  try {
    const building = demoBuilding(directory);
    const change = 'UPDATE building SET level = level + 5 WHERE id = :candidate';
    const objective = 'SELECT sum(level) FROM building';
    const database = openSqliteFile(building, { readonly: true });
    const ids = database.prepare('SELECT id FROM building ORDER BY id').pluck().all() as number[];
    database.close();

    console.log(`1. Building demo (${(statSync(building).size / 1024).toFixed(0)} KiB, ${ids.length} buildings): fastest of ${REPEATS} runs`);
    const rows: Record<string, string | number>[] = [];
    let single = 0;
    for (const count of [1, 10, 50, ids.length]) {
      const candidates: Candidate[] = ids.slice(0, count);
      const ms = await fastest(() => runWhatIf({ source: building, candidates, change, objective }));
      if (count === 1) single = ms;
      rows.push({
        candidates: count,
        'run ms': Number(ms.toFixed(1)),
        'per candidate beyond the first, ms': count === 1 ? '—' : Number(((ms - single) / (count - 1)).toFixed(2)),
        'candidates / s (whole run)': Math.round(count / (ms / 1000)),
      });
    }
    console.table(rows);

    const synthetic = syntheticDatabase(directory, 400_000);
    const megabytes = statSync(synthetic).size / 2 ** 20;
    const syntheticChange = 'UPDATE account SET balance = balance * 1.1 WHERE region = :candidate';
    const syntheticObjective = 'SELECT sum(balance) FROM account';
    const one = await fastest(() => runWhatIf({ source: synthetic, candidates: [1], change: syntheticChange, objective: syntheticObjective }));
    const ten = await fastest(() => runWhatIf({ source: synthetic, candidates: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], change: syntheticChange, objective: syntheticObjective }));
    console.log(`\n2. Synthetic database (${megabytes.toFixed(1)} MiB, 400,000 rows; each candidate updates 8,000 rows and sums all)`);
    console.log(`one candidate: ${one.toFixed(0)} ms (hash before and after, copy, worker, one experiment)`);
    console.log(`ten candidates: ${ten.toFixed(0)} ms; per candidate beyond the first ${((ten - one) / 9).toFixed(1)} ms`);

    const unavailable = whyPostgresUnavailable();
    if (unavailable === null) await serverSection(directory, ids, one);
    else console.log(`\n3. PostgreSQL: not measured (${unavailable})`);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** Section 3: the same experiments on PostgreSQL, whose named tables are copied into DuckDB. */
async function serverSection(directory: string, ids: number[], sqliteOne: number): Promise<void> {
  const server = await startPostgres();
  if (!server) return;
  try {
    const uri = await importRelationalDump(server.uri, demoDump);
    const pg = await import('pg');
    const admin = new pg.default.Client({ connectionString: uri });
    admin.on('error', () => undefined); // the server stops in `finally` whatever happened
    await admin.connect();
    try {
      await admin.query(
        "CREATE TABLE account AS SELECT id, id % 50 AS region, ((id::bigint * 7919) % 10000)::double precision AS balance, 'account ' || id || ' of the synthetic benchmark' AS note FROM generate_series(1, 400000) AS id",
      );
    } finally {
      await admin.end();
    }
    const connector = await openConnectionUri(uri);
    try {
      const spec = { change: 'UPDATE building SET level = level + 5 WHERE id = $candidate', objective: 'SELECT sum(level) FROM building', direction: 'maximize' as const, tolerance: 1e-9, timeoutMs: 10_000 };
      const target = parseConnectionUri(uri);
      const demoOne = await fastest(() => runWhatIfOnConnection(target, connector, { ...spec, candidates: ids.slice(0, 1) }));
      const demoAll = await fastest(() => runWhatIfOnConnection(target, connector, { ...spec, candidates: ids }));
      console.log('\n3. PostgreSQL (the Building demo imported; the building table copied into DuckDB)');
      console.log(`one candidate: ${demoOne.toFixed(0)} ms; all ${ids.length}: ${demoAll.toFixed(0)} ms (${((demoAll - demoOne) / (ids.length - 1)).toFixed(2)} ms per further candidate)`);

      const texts = ['UPDATE account SET balance = balance * 1.1 WHERE region = $candidate', 'SELECT sum(balance) FROM account'];
      const source = await serverTablesSource('postgres', connector, texts);
      const copyMs = await fastest(() => source.snapshot(mkdtempSync(join(directory, 'snapshot-'))));
      const digestMs = await fastest(() => source.digest());
      const run = { change: texts[0] ?? '', objective: texts[1] ?? '', direction: 'maximize' as const, tolerance: 1e-9, timeoutMs: 60_000 };
      const one = await fastest(() => runWhatIfOnConnection(target, connector, { ...run, candidates: [1] }));
      const ten = await fastest(() => runWhatIfOnConnection(target, connector, { ...run, candidates: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }));
      console.log('400,000-row table on the server (each candidate updates 8,000 rows and sums all):');
      console.log(`copy into DuckDB (read + write): ${copyMs.toFixed(0)} ms, ${Math.round(400_000 / (copyMs / 1000)).toLocaleString('en-US')} rows/s; digest re-read: ${digestMs.toFixed(0)} ms`);
      console.log(`one candidate: ${one.toFixed(0)} ms (${(one / sqliteOne).toFixed(1)}× the SQLite file of section 2); ten: ${ten.toFixed(0)} ms; per candidate beyond the first ${((ten - one) / 9).toFixed(1)} ms`);
    } finally {
      await connector.close();
    }
  } finally {
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
