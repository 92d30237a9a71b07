/**
 * What-if sandbox: ranks candidate changes on a throwaway copy of a tiny SQLite file whose
 * answers are computed by hand, and proves the source untouched (byte-identical, no companion
 * files created) after success, after failing changes and objectives, and after a timeout.
 * Scratch copies go into a folder the test owns, which must be empty afterwards.
 */
import Database from 'better-sqlite3';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../src-main/contract/errors';
import { rankCandidates, runWhatIf, whatIfParamsSchema, whatIfResultSchema, type WhatIfInput } from '../../../src-main/whatif';
import { fileHash } from '../../support/fixtures';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();

/** store(id, region, revenue): north 10 + 20 = 30, south 30 + 5 = 35. */
function tinyStore(directory: string): string {
  const path = join(directory, 'store.sqlite');
  const database = new Database(path);
  database.exec(`
    CREATE TABLE store (id INTEGER PRIMARY KEY, region TEXT NOT NULL, revenue REAL NOT NULL);
    INSERT INTO store VALUES (1, 'n', 10), (2, 'n', 20), (3, 's', 30), (4, 's', 5);
    CREATE TABLE log (v);
  `);
  database.close();
  return path;
}

interface Sandbox {
  source: string;
  scratchRoot: string;
  /** Runs a what-if and checks the source and the scratch folder afterwards, whether it succeeded or failed. */
  run(input: Omit<WhatIfInput, 'source'>): ReturnType<typeof runWhatIf>;
}

function sandbox(): Sandbox {
  const dir = tempDir();
  const source = tinyStore(dir);
  const scratchRoot = join(dir, 'scratch');
  mkdirSync(scratchRoot);
  const hash = fileHash(source);
  const listing = readdirSync(dir).sort();
  return {
    source,
    scratchRoot,
    run: async (input) => {
      try {
        return await runWhatIf({ ...input, source }, { scratchRoot });
      } finally {
        expect(fileHash(source)).toBe(hash);
        expect(readdirSync(dir).sort()).toEqual(listing);
        expect(readdirSync(scratchRoot)).toEqual([]);
      }
    },
  };
}

const doubleRevenue = 'UPDATE store SET revenue = revenue * 2 WHERE id = :candidate';
const northRevenue = "SELECT sum(revenue) FROM store WHERE region = 'n'";

async function failure(promise: Promise<unknown>): Promise<WorkbenchError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(WorkbenchError);
    return error as WorkbenchError;
  }
  throw new Error('expected the what-if to fail');
}

describe('runWhatIf ranks candidates on a copy', () => {
  it('maximizes: doubling store 2 raises the north revenue most', async () => {
    const box = sandbox();
    const result = await box.run({ candidates: [1, 2, 3, 4, 9], change: doubleRevenue, objective: northRevenue });
    // before 30 for all; after: 1 -> 40, 2 -> 50, 3 and 4 (south) -> 30, 9 (no such store) -> 30.
    expect(result.rows).toEqual([
      { candidate: 2, before: 30, after: 50, delta: 20, rank: 1, changedRows: 1 },
      { candidate: 1, before: 30, after: 40, delta: 10, rank: 2, changedRows: 1 },
      { candidate: 3, before: 30, after: 30, delta: 0, rank: 3, changedRows: 1 },
      { candidate: 4, before: 30, after: 30, delta: 0, rank: 3, changedRows: 1 },
      { candidate: 9, before: 30, after: 30, delta: 0, rank: 3, changedRows: 0 },
    ]);
    expect(result).toMatchObject({ best: 2, margin: 10, tied: [2], direction: 'maximize', tolerance: 1e-9 });
    expect(result.notes).toEqual(['the change modified no rows for 1 candidate(s): 9']);
    expect(result.sourceDigestAfter).toBe(result.sourceDigestBefore);
    expect(result.sourceDigestBefore).toBe(`sha256:${fileHash(box.source)}`);
    expect(result.isolation).toBe('process');
    expect(whatIfResultSchema.parse(result)).toEqual(result);
  });

  it('minimizes: doubling the smallest store raises the total least', async () => {
    const box = sandbox();
    const result = await box.run({ candidates: [1, 2, 3, 4], change: doubleRevenue, objective: 'SELECT sum(revenue) FROM store', direction: 'minimize' });
    // total 65; doubling adds the store's own revenue: +10, +20, +30, +5.
    expect(result.rows.map((r) => [r.candidate, r.after, r.rank])).toEqual([
      [4, 70, 1],
      [1, 75, 2],
      [2, 85, 3],
      [3, 95, 4],
    ]);
    expect(result.margin).toBe(5);
  });

  it('reports ties within the relative tolerance and picks the first in candidate order', async () => {
    const box = sandbox();
    const exact = await box.run({ candidates: [3, 1, 2], change: 'UPDATE store SET revenue = revenue + 10 WHERE id = :candidate', objective: 'SELECT sum(revenue) FROM store' });
    expect(exact).toMatchObject({ best: 3, tied: [3, 1, 2], margin: 0 });
    expect(exact.rows.every((r) => r.rank === 1)).toBe(true);
    expect(exact.notes).toContain('3 candidates are within relative 1e-9 of the best; 3 is the first of them in candidate order');

    // 1e-12 apart: tied under the default tolerance, ranked apart with tolerance 0.
    const change = 'UPDATE store SET revenue = revenue + (CASE :candidate WHEN 1 THEN 1e-10 ELSE 0 END) WHERE id = 1';
    const near = await box.run({ candidates: [2, 1], change: `${change} OR :candidate > 0`, objective: 'SELECT sum(revenue) FROM store' });
    expect(near.tied).toEqual([2, 1]);
    expect(near.best).toBe(2);
    const strict = await box.run({ candidates: [2, 1], change: `${change} OR :candidate > 0`, objective: 'SELECT sum(revenue) FROM store', tolerance: 0 });
    expect(strict.best).toBe(1);
    expect(strict.tied).toEqual([1]);
  });

  it('binds whole numbers as SQL integers and text as text, and lets the objective use :candidate', async () => {
    const box = sandbox();
    const result = await box.run({
      candidates: [3, 'x', 2.5],
      change: 'INSERT INTO log (v) VALUES (:candidate)',
      objective: "SELECT count(*) FROM log WHERE v = :candidate AND typeof(v) = 'integer'",
    });
    expect(result.rows.map((r) => [r.candidate, r.before, r.after])).toEqual([
      [3, 0, 1],
      ['x', 0, 0],
      [2.5, 0, 0],
    ]);
  });

  it('copies a WAL database with its -wal file and leaves both untouched', async () => {
    const dir = tempDir();
    const source = join(dir, 'wal.sqlite');
    const writer = new Database(source);
    try {
      writer.pragma('journal_mode = WAL');
      writer.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v REAL); INSERT INTO t VALUES (1, 1), (2, 2)");
      // Still only in the -wal file while the writer keeps the database open.
      const before = { main: fileHash(source), wal: fileHash(`${source}-wal`) };
      const result = await runWhatIf({ source, candidates: [1, 2], change: 'UPDATE t SET v = v * 10 WHERE id = :candidate', objective: 'SELECT sum(v) FROM t' }, { scratchRoot: dir });
      expect(result.rows.map((r) => [r.candidate, r.before, r.after])).toEqual([
        [2, 3, 21],
        [1, 3, 12],
      ]);
      expect({ main: fileHash(source), wal: fileHash(`${source}-wal`) }).toEqual(before);
    } finally {
      writer.close();
    }
  });
});

describe('runWhatIf refuses clearly and leaves the source byte-identical', () => {
  it('a change that fails for one candidate', async () => {
    const error = await failure(sandbox().run({ candidates: [1, 2], change: 'UPDATE store SET id = 1 WHERE id = :candidate', objective: northRevenue }));
    expect(error.code).toBe('query-failed');
    expect(error.message).toBe('change for candidate 2: SQLite: UNIQUE constraint failed: store.id');
  });

  it.each([
    ['two rows', 'SELECT revenue FROM store WHERE id < 3', /exactly one number .* it returned 2 row\(s\) of 1 column\(s\)/],
    ['two columns', 'SELECT 1, 2', /exactly one number .* it returned 1 row\(s\) of 2 column\(s\)/],
    ['text', "SELECT 'many'", /must return a finite number; before candidate 1 it returned "many"/],
    ['NULL', 'SELECT sum(revenue) FROM store WHERE 0', /must return a finite number; before candidate 1 it returned NULL/],
    ['a write', 'DELETE FROM store RETURNING id', /the objective must be a read-only query/],
    ['a syntax error', 'SELEKT 1', /objective: SQLite: near "SELEKT": syntax error/],
  ])('an objective returning %s', async (_label, objective, message) => {
    const error = await failure(sandbox().run({ candidates: [1], change: doubleRevenue, objective }));
    expect(error.message).toMatch(message);
  });

  it.each([
    ['a query', 'SELECT :candidate', /the change must be a statement that modifies data/],
    ['ATTACH of another file', 'ATTACH :candidate AS other', /queries, ATTACH and transaction control are refused/],
    ['transaction control', 'COMMIT -- :candidate', /queries, ATTACH and transaction control are refused/],
    ['two statements', `${doubleRevenue}; DELETE FROM store`, /the change must be a single SQL statement/],
    ['no :candidate', 'DELETE FROM store', /the change must use the :candidate parameter/],
  ])('a change that is %s', async (_label, change, message) => {
    const box = sandbox();
    const error = await failure(box.run({ candidates: [box.source], change, objective: northRevenue }));
    expect(error.code).toBe('invalid-request');
    expect(error.message).toMatch(message);
  });

  it('bad candidate lists and a missing source', async () => {
    const box = sandbox();
    expect((await failure(box.run({ candidates: [], change: doubleRevenue, objective: northRevenue }))).message).toMatch(/^what-if candidates: /);
    const tooMany = Array.from({ length: 10_001 }, (_, i) => i);
    expect((await failure(box.run({ candidates: tooMany, change: doubleRevenue, objective: northRevenue }))).message).toMatch(/^what-if candidates: /);
    expect((await failure(box.run({ candidates: [1, 2, 1], change: doubleRevenue, objective: northRevenue }))).message).toBe('what-if candidates: 1 is listed twice');
    const missing = await failure(runWhatIf({ source: join(tempDir(), 'none.sqlite'), candidates: [1], change: doubleRevenue, objective: northRevenue }));
    expect(missing.code).toBe('not-found');
  });

  it('stops a runaway candidate at its time limit', async () => {
    const endless = 'UPDATE store SET revenue = (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c) WHERE id = :candidate';
    const started = Date.now();
    const error = await failure(sandbox().run({ candidates: [1, 2], change: endless, objective: northRevenue, timeoutMs: 500 }));
    expect(error.code).toBe('timeout');
    expect(error.message).toBe('candidate 1: the change and objective took longer than 500 ms');
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});

describe('rankCandidates and the parameter schema', () => {
  it('ranks pure values: best first, ranks with ties, margin, tied set', () => {
    const ranking = rankCandidates(
      [
        { candidate: 'a', before: 0, after: 1, changedRows: 1 },
        { candidate: 'b', before: 0, after: 3, changedRows: 1 },
        { candidate: 'c', before: 0, after: 3 * (1 + 1e-12), changedRows: 1 },
        { candidate: 'd', before: 0, after: 2, changedRows: 1 },
      ],
      'maximize',
      1e-9,
    );
    expect(ranking.best).toBe('b');
    expect(ranking.tied).toEqual(['b', 'c']);
    expect(ranking.rows.map((r) => [r.candidate, r.rank])).toEqual([
      ['b', 1],
      ['c', 1],
      ['d', 3],
      ['a', 4],
    ]);
    expect(ranking.margin).toBeCloseTo(-3e-12, 14);
    expect(rankCandidates([{ candidate: 1, before: 5, after: 4, changedRows: 1 }], 'minimize', 0)).toMatchObject({ best: 1, margin: null, tied: [1] });
  });

  it('documents every parameter for a model tool and fills the defaults', () => {
    const parsed = whatIfParamsSchema.parse({ source: 'x.sqlite', candidates: [1], change: doubleRevenue, objective: northRevenue });
    expect(parsed).toMatchObject({ direction: 'maximize', tolerance: 1e-9, timeoutMs: 10_000 });
    for (const field of Object.values(whatIfParamsSchema.shape)) expect(field.description ?? '').not.toBe('');
  });
});
