/**
 * Scenarios in the what-if sandbox (DeLLMa's exact outcomes): several labelled changes, each
 * scenario applying some of them in order inside one rolled-back transaction, on a real SQLite
 * file and a real DuckDB file; the source stays byte-identical and a change that does not
 * write is refused by its label.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runScenariosOnSource } from '../../../src-main/whatif/run-scenarios';
import { fileSource } from '../../../src-main/whatif/sandbox-source';
import { fileHash } from '../../support/fixtures';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();

function sqliteFile(directory: string): string {
  const path = join(directory, 'sales.sqlite');
  const database = new Database(path);
  database.exec("CREATE TABLE sales (region TEXT, qty REAL); INSERT INTO sales VALUES ('north', 10), ('south', 20);");
  database.close();
  return path;
}

async function duckdbFile(directory: string): Promise<string> {
  const path = join(directory, 'sales.duckdb');
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  await connection.run("CREATE TABLE sales (region VARCHAR, qty DOUBLE); INSERT INTO sales VALUES ('north', 10), ('south', 20);");
  connection.closeSync();
  instance.closeSync();
  return path;
}

const cases = [
  {
    engine: 'SQLite',
    make: async (directory: string) => sqliteFile(directory),
    kind: { engine: 'sqlite' } as const,
    parameter: ':candidate',
    // Compiles, then fails while running on the data (region names are not JSON).
    brokenObjective: { text: "SELECT json_extract(region, '$.size') FROM sales WHERE region = 'north'", error: /SQLite: malformed JSON$/ },
  },
  {
    engine: 'DuckDB',
    make: duckdbFile,
    kind: { engine: 'duckdb', format: 'duckdb' } as const,
    parameter: '$candidate',
    brokenObjective: { text: "SELECT CAST(region AS INTEGER) FROM sales WHERE region = 'north'", error: /DuckDB: Conversion Error: .*north/ },
  },
];

describe.each(cases)('scenarios on $engine data', ({ make, kind, parameter, brokenObjective }) => {
  it('applies each scenario’s changes in order, from the original data every time, and leaves the file byte-identical', async () => {
    const path = await make(tempDir());
    const before = fileHash(path);
    const changes = [
      { label: 'double', text: 'UPDATE sales SET qty = qty * 2' },
      { label: 'plus one', text: 'UPDATE sales SET qty = qty + 1' },
      { label: 'one region', text: `UPDATE sales SET qty = 0 WHERE region = ${parameter}` },
    ];
    const run = await runScenariosOnSource(fileSource(path, kind), {
      changes,
      objective: 'SELECT sum(qty) FROM sales',
      scenarios: [
        { steps: [0, 1], candidate: 'north' },
        { steps: [1, 0], candidate: 'north' },
        { steps: [], candidate: 'north' },
        { steps: [0, 2], candidate: 'south' },
      ],
    });
    // (10·2+1) + (20·2+1) = 62; (10+1)·2 + (20+1)·2 = 64; nothing: 30; doubled, south zeroed: 20.
    expect(run.measures).toEqual([
      { before: 30, after: 62, changedRows: 4 },
      { before: 30, after: 64, changedRows: 4 },
      { before: 30, after: 30, changedRows: 0 },
      { before: 30, after: 20, changedRows: 3 },
    ]);
    expect(run.sourceDigestAfter).toBe(run.sourceDigestBefore);
    expect(fileHash(path)).toBe(before);
  });

  it('records a scenario that fails on its own data, runs the rest, and stops at a runaway scenario', async () => {
    const path = await make(tempDir());
    const before = fileHash(path);
    // Half of the scenarios leave no qty above 15, where the objective's average is NULL.
    const changes = [
      { label: 'halve', text: 'UPDATE sales SET qty = qty / 2' },
      { label: 'double', text: 'UPDATE sales SET qty = qty * 2' },
    ];
    const run = await runScenariosOnSource(fileSource(path, kind), {
      changes,
      objective: 'SELECT avg(qty) FROM sales WHERE qty > 15 OR region = ' + parameter,
      scenarios: [
        { steps: [0], candidate: 'east' },
        { steps: [1], candidate: 'east' },
        { steps: [0], candidate: 'north' },
      ],
    });
    expect(run.measures).toEqual([
      { failed: 'the objective must return a finite number; after candidate east it returned NULL' },
      { before: 20, after: 30, changedRows: 2 },
      { before: 15, after: 5, changedRows: 2 },
    ]);
    // A scenario past its time limit ends the run (its process is killed), naming the scenario.
    const runaway = 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000000000) SELECT count(*) FROM n';
    await expect(runScenariosOnSource(fileSource(path, kind), { changes, objective: runaway, timeoutMs: 300, scenarios: [{ steps: [0], candidate: 'north' }] })).rejects.toThrow(
      /^scenario for north: the changes and objective took longer than 300 ms$/,
    );
    // Stopping the run stops the scenario that is running, not only the ones after it.
    const stop = new AbortController();
    const stopped = runScenariosOnSource(fileSource(path, kind), { changes, objective: runaway, timeoutMs: 120_000, scenarios: [{ steps: [0], candidate: 'north' }] }, { signal: stop.signal });
    setTimeout(() => stop.abort(), 300);
    await expect(stopped).rejects.toThrow(/^stopped after 0 of 1 scenarios$/);
    expect(fileHash(path)).toBe(before);
  });

  it('stops before any scenario when the objective fails on the unchanged data, naming the objective and the database error', async () => {
    const path = await make(tempDir());
    const before = fileHash(path);
    // Each scenario would run past its time limit: the objective's error, not a timeout, shows that none ran.
    const runaway = { label: 'runaway', text: 'UPDATE sales SET qty = (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000000000) SELECT count(*) FROM n)' };
    const scenarios = ['north', 'south', 'east'].map((candidate) => ({ steps: [0], candidate }));
    const failing = runScenariosOnSource(fileSource(path, kind), { changes: [runaway], objective: brokenObjective.text, timeoutMs: 300, scenarios });
    const error = await failing.then(
      () => null,
      (thrown: unknown) => thrown as { code: string; message: string },
    );
    expect(error?.code).toBe('invalid-request');
    expect(error?.message.startsWith(`the objective fails on the unchanged data, so none of the 3 scenarios was run (objective: ${brokenObjective.text}): objective before candidate north: `)).toBe(true);
    expect(error?.message).toMatch(brokenObjective.error);
    expect(fileHash(path)).toBe(before);
  });

  it('runs the scenarios when an objective naming the candidate fails on the unchanged data for some candidates only', async () => {
    const path = await make(tempDir());
    // Unchanged, 'east' has no sales, so its average is NULL; north and south have theirs.
    const run = await runScenariosOnSource(fileSource(path, kind), {
      changes: [{ label: 'double', text: 'UPDATE sales SET qty = qty * 2' }],
      objective: `SELECT avg(qty) FROM sales WHERE region = ${parameter}`,
      scenarios: ['east', 'north'].map((candidate) => ({ steps: [0], candidate })),
    });
    expect(run.measures).toEqual([{ failed: 'the objective must return a finite number; before candidate east it returned NULL' }, { before: 10, after: 20, changedRows: 2 }]);
  });

  it('refuses a change that does not write, naming it by its label', async () => {
    const path = await make(tempDir());
    await expect(
      runScenariosOnSource(fileSource(path, kind), { changes: [{ label: '"demand" = "low"', text: 'SELECT 1' }], objective: 'SELECT count(*) FROM sales', scenarios: [{ steps: [0], candidate: 'a' }] }),
    ).rejects.toThrow(/^"demand" = "low" must be (a statement that modifies data|one INSERT, UPDATE or DELETE)/);
  });
});

describe('scenarios on SQLite data cannot reach another file', () => {
  it('refuses ATTACH before any scenario, and VACUUM INTO fails inside the rolled-back transaction without writing the file', async () => {
    const directory = tempDir();
    const path = sqliteFile(directory);
    const before = fileHash(path);
    const escape = join(directory, 'escape.sqlite');
    await expect(
      runScenariosOnSource(fileSource(path, { engine: 'sqlite' }), { changes: [{ label: 'attach', text: `ATTACH '${escape}' AS other` }], objective: 'SELECT count(*) FROM sales', scenarios: [{ steps: [0], candidate: 'a' }] }),
    ).rejects.toThrow(/^attach must be a statement that modifies data \(UPDATE, INSERT, DELETE, …\); queries, ATTACH and transaction control are refused$/);
    const run = await runScenariosOnSource(fileSource(path, { engine: 'sqlite' }), { changes: [{ label: 'vacuum', text: `VACUUM INTO '${escape}'` }], objective: 'SELECT count(*) FROM sales', scenarios: [{ steps: [0], candidate: 'a' }] });
    expect(run.measures).toEqual([{ failed: 'vacuum for candidate a: SQLite: cannot VACUUM from within a transaction' }]);
    expect(existsSync(escape)).toBe(false);
    expect(fileHash(path)).toBe(before);
  });
});
