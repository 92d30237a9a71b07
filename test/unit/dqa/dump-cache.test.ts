/**
 * The persistent cache of parsed dumps (dump-cache.ts, dump-cache-format.ts): a cached load
 * gives exactly the parsed data and the same answer to every dev question; damaged, truncated,
 * stale or foreign entries are never used (the dump is parsed again and the entry rewritten),
 * any bytes at all decode without a throw, an unwritable folder only costs the caching, and
 * the folder stays within its size bound.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dqaRoot, type DqaScenario } from '../../../src-main/dqa/dataset';
import { defaultDumpCacheDir, entryName, openDumpCache, type DumpCache } from '../../../src-main/dqa/dump-cache';
import { decodeParsedDump, DUMP_CACHE_FORMAT_VERSION, dumpSourceHash, encodeParsedDump, type DumpCacheKey } from '../../../src-main/dqa/dump-cache-format';
import { parsedDumpData, parsedDumpDatabases } from '../../../src-main/dqa/dump-databases';
import { loadBuildingDump, loadLocatingDump, type DumpKind } from '../../../src-main/dqa/load';
import { readQuestionSet } from '../../../src-main/dqa/question-file';
import type { DbKind } from '../../../src-main/dqa/scenario-databases';
import { solveQuestionSet } from '../../../src-main/dqa/solve-questions';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();

interface DevDump {
  scenario: DqaScenario;
  name: string;
  path: string;
  kind: DumpKind;
}

function devDumps(): DevDump[] {
  const dumps: DevDump[] = [];
  for (const scenario of ['locating', 'building'] as const) {
    const folder = join(dqaRoot(), scenario, 'db');
    for (const name of readdirSync(folder).sort()) {
      const kind = name.endsWith('.sql') ? 'relational' : name.endsWith('.cql') ? 'graph' : null;
      if (kind !== null) dumps.push({ scenario, name: `db/${name}`, path: join(folder, name), kind });
    }
  }
  return dumps;
}

const dumps = devDumps();

function parse(dump: DevDump): ReturnType<typeof loadLocatingDump> | ReturnType<typeof loadBuildingDump> {
  const text = readFileSync(dump.path, 'utf8');
  return dump.scenario === 'locating' ? loadLocatingDump(text, dump.kind, dump.name) : loadBuildingDump(text, dump.kind, dump.name);
}

const keyOf = (dump: DevDump): DumpCacheKey => ({ sourceHash: dumpSourceHash(readFileSync(dump.path)), scenario: dump.scenario, kind: dump.kind });
const optionsOf = (dump: DevDump): { scenario: DqaScenario; db: DbKind } => ({ scenario: dump.scenario, db: dump.kind === 'relational' ? 'rdb' : 'gdb' });
const quiet = (): void => undefined;

describe('a cached load equals a parsed load', () => {
  it(`gives back exactly the parsed data of every dev dump (${dumps.length} dumps, both kinds)`, () => {
    expect(dumps.length).toBeGreaterThanOrEqual(30);
    for (const dump of dumps) {
      const parsed = parse(dump);
      const key = keyOf(dump);
      const decoded = decodeParsedDump(encodeParsedDump(key, parsed), key);
      // toStrictEqual: same arrays in the same order, same fields, numbers equal (and -0 kept apart from 0).
      expect(decoded, dump.name).toStrictEqual(parsed);
    }
  });

  it('answers every dev question identically from the cache and from parsing, both kinds, both rule sets', async () => {
    const cacheDir = tempDir();
    let compared = 0;
    for (const scenario of ['locating', 'building'] as const) {
      const set = readQuestionSet(join(dqaRoot(), scenario, 'questions.json'));
      for (const db of ['rdb', 'gdb'] as const) {
        for (const rules of ['compat', 'stated'] as const) {
          const options = { scenario, db, baseDir: set.baseDir };
          const parsed = await solveQuestionSet(set, { rules, db, databases: parsedDumpDatabases(options, null) });
          const filling = openDumpCache({ dir: cacheDir });
          await solveQuestionSet(set, { rules, db, databases: parsedDumpDatabases(options, filling) });
          const reading = openDumpCache({ dir: cacheDir });
          const cached = await solveQuestionSet(set, { rules, db, databases: parsedDumpDatabases(options, reading) });
          const distinctDumps = new Set(cached.verdicts.map((v) => v.database)).size;
          // The dev dumps are old files: recognised by their identity, neither read nor hashed.
          expect(reading.counts).toEqual({ hits: distinctDumps, writes: 0, rejected: 0, recognised: distinctDumps });
          const strip = (run: typeof parsed): unknown[] => run.verdicts.map(({ solveMs: _ms, ...verdict }) => verdict);
          expect(strip(cached)).toStrictEqual(strip(parsed));
          compared += cached.verdicts.length;
        }
      }
    }
    expect(compared).toBe(4 * (81 + 36));
  });
});

/** One entry written by a real load of `dump`; returns the cache and the entry's path. */
function filledCache(dump: DevDump, dir: string): { cache: DumpCache; path: string } {
  const cache = openDumpCache({ dir });
  parsedDumpData(dump.path, dump.name, optionsOf(dump), cache, quiet);
  expect(cache.counts.writes).toBe(1);
  return { cache, path: join(dir, entryName(keyOf(dump))) };
}

/** Loads `dump` through a fresh cache on `dir`: the data must be the parsed data, whatever the entry held. */
function loadThrough(dump: DevDump, dir: string): DumpCache {
  const cache = openDumpCache({ dir });
  expect(parsedDumpData(dump.path, dump.name, optionsOf(dump), cache, quiet)).toStrictEqual(parse(dump));
  return cache;
}

describe('damaged, stale and foreign entries are parsed again, never used', () => {
  const locatingGraph = dumps.find((d) => d.scenario === 'locating' && d.kind === 'graph') as DevDump;
  const buildingSql = dumps.find((d) => d.scenario === 'building' && d.kind === 'relational') as DevDump;

  it.each([
    ['an empty file', () => Buffer.alloc(0)],
    ['the header only', (bytes: Buffer) => bytes.subarray(0, 96)],
    ['cut in the middle', (bytes: Buffer) => bytes.subarray(0, bytes.length >> 1)],
    ['one byte short', (bytes: Buffer) => bytes.subarray(0, bytes.length - 1)],
    ['one byte more', (bytes: Buffer) => Buffer.concat([bytes, Buffer.from([0])])],
    ['random bytes of the same length', (bytes: Buffer) => Buffer.from(bytes.map((_, i) => (i * 7919 + 13) & 0xff))],
    ['JSON', () => Buffer.from('{"countries":[]}')],
    [
      'another format version',
      (bytes: Buffer) => {
        const copy = Buffer.from(bytes);
        copy.writeUInt32LE(DUMP_CACHE_FORMAT_VERSION + 1, 8);
        return copy;
      },
    ],
  ])('%s', (_label, damage) => {
    for (const dump of [locatingGraph, buildingSql]) {
      const dir = tempDir();
      const { path } = filledCache(dump, dir);
      writeFileSync(path, damage(readFileSync(path)));
      const cache = loadThrough(dump, dir);
      expect(cache.counts).toEqual({ hits: 0, writes: 1, rejected: 1, recognised: 1 });
      // Rewritten whole: the next load reads it.
      expect(loadThrough(dump, dir).counts).toEqual({ hits: 1, writes: 0, rejected: 0, recognised: 1 });
    }
  });

  it('any single flipped byte, anywhere in the entry', () => {
    const dir = tempDir();
    const { path } = filledCache(buildingSql, dir);
    const good = readFileSync(path);
    const key = keyOf(buildingSql);
    const positions = new Set<number>();
    for (let i = 0; i < 128; i += 1) positions.add(i);
    for (let i = 128; i < good.length; i += Math.max(1, Math.floor(good.length / 400))) positions.add(i);
    positions.add(good.length - 1);
    for (const position of positions) {
      const damaged = Buffer.from(good);
      damaged[position] = (damaged[position] as number) ^ 0x5a;
      // Reserved header bytes count too: any change to the file makes it not this entry.
      expect(decodeParsedDump(damaged, key), `byte ${position}`).toBeNull();
    }
    expect(positions.size).toBeGreaterThan(400);
  });

  it('an entry of another dump, or of the same dump read as the other scenario or kind, is not taken', () => {
    const dir = tempDir();
    const other = dumps.find((d) => d.scenario === 'building' && d.kind === 'relational' && d.path !== buildingSql.path) as DevDump;
    const { path: otherPath } = filledCache(other, dir);
    copyFileSync(otherPath, join(dir, entryName(keyOf(buildingSql))));
    expect(loadThrough(buildingSql, dir).counts.rejected).toBe(1);
    const bytes = readFileSync(join(dir, entryName(keyOf(buildingSql))));
    const key = keyOf(buildingSql);
    expect(decodeParsedDump(bytes, key)).not.toBeNull();
    expect(decodeParsedDump(bytes, { ...key, scenario: 'locating' })).toBeNull();
    expect(decodeParsedDump(bytes, { ...key, kind: 'graph' })).toBeNull();
  });

  it('a folder where the entry should be, or an unreadable entry, is a miss', () => {
    const dir = tempDir();
    mkdirSync(join(dir, entryName(keyOf(buildingSql))), { recursive: true });
    const cache = openDumpCache({ dir });
    expect(parsedDumpData(buildingSql.path, buildingSql.name, optionsOf(buildingSql), cache, quiet)).toStrictEqual(parse(buildingSql));
    expect(cache.counts.hits).toBe(0);
  });

  it('never throws on any bytes, even with a payload hash recomputed to match (a forged entry)', () => {
    const dir = tempDir();
    const { path } = filledCache(buildingSql, dir);
    const good = readFileSync(path);
    const key = keyOf(buildingSql);
    const reseal = (bytes: Buffer): Buffer => {
      const copy = Buffer.from(bytes);
      if (copy.length >= 96) {
        copy.writeUInt32LE(copy.length - 96, 48);
        createHash('sha256').update(copy.subarray(96)).digest().copy(copy, 56);
      }
      return copy;
    };
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }), fc.nat(), (edits, cut) => {
        const damaged = Buffer.from(good);
        for (const [at, value] of edits) damaged[96 + (at % (damaged.length - 96))] = value;
        const truncated = cut % 3 === 0 ? damaged.subarray(0, 96 + (cut % (damaged.length - 96))) : damaged;
        expect(() => decodeParsedDump(reseal(truncated), key)).not.toThrow();
      }),
      { numRuns: 300 },
    );
  });
});

describe('keys, the folder and its bound', () => {
  const sample = dumps.filter((d) => d.scenario === 'building' && d.kind === 'relational').slice(0, 4);

  it('keys on the bytes: a copy under another name hits, a one-byte change misses', () => {
    const dir = tempDir();
    const [dump] = sample as [DevDump];
    filledCache(dump, dir);
    const copies = tempDir();
    const renamed = { ...dump, path: join(copies, 'renamed.sql'), name: 'renamed.sql' };
    copyFileSync(dump.path, renamed.path);
    expect(loadThrough(renamed, dir).counts.hits).toBe(1);
    const changed = { ...dump, path: join(copies, 'changed.sql'), name: 'changed.sql' };
    writeFileSync(changed.path, `${readFileSync(dump.path, 'utf8')}\n`);
    const cache = loadThrough(changed, dir);
    // Just written, so too recent to be recognised by its identity: read and hashed.
    expect(cache.counts).toEqual({ hits: 0, writes: 1, rejected: 0, recognised: 0 });
  });

  it('[ext] recognises an unchanged dump by its identity file, and reads again one rewritten in place with its size and mtime kept', () => {
    const dir = tempDir();
    const [dump] = sample as [DevDump];
    const copy = { ...dump, path: join(tempDir(), 'copy.sql'), name: 'copy.sql' };
    copyFileSync(dump.path, copy.path);
    const anHourAgo = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
    utimesSync(copy.path, anHourAgo, anHourAgo);
    // racyMs 0: the copy was just written; the default window would rightly not remember it yet.
    const load = (): DumpCache => {
      const cache = openDumpCache({ dir, racyMs: 0 });
      expect(parsedDumpData(copy.path, copy.name, optionsOf(copy), cache, quiet)).toStrictEqual(parse(copy));
      return cache;
    };
    expect(load().counts).toEqual({ hits: 0, writes: 1, rejected: 0, recognised: 0 });
    expect(readdirSync(dir).filter((name) => name.endsWith('.dwbid'))).toHaveLength(1);
    expect(load().counts).toEqual({ hits: 1, writes: 0, rejected: 0, recognised: 1 });

    // Same size, one digit of a price changed, the old modification time put back (touch -r):
    // the change time still moves, so the identity differs and the new bytes are hashed.
    const text = readFileSync(copy.path, 'utf8');
    const at = text.indexOf('.', text.search(/INSERT INTO/i));
    const digit = text.slice(at).search(/\.\d/) + at + 1;
    const changedText = `${text.slice(0, digit)}${text[digit] === '7' ? '8' : '7'}${text.slice(digit + 1)}`;
    const before = statSync(copy.path);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50); // past one tick of the file system's clock
    writeFileSync(copy.path, changedText);
    utimesSync(copy.path, anHourAgo, anHourAgo);
    expect(statSync(copy.path).size).toBe(before.size);
    expect(statSync(copy.path).mtimeMs).toBe(before.mtimeMs);
    expect(parse(copy)).not.toStrictEqual(parse(dump));
    expect(load().counts).toEqual({ hits: 0, writes: 1, rejected: 0, recognised: 0 });
    expect(load().counts).toEqual({ hits: 1, writes: 0, rejected: 0, recognised: 1 });
  });

  it('[ext] a damaged identity file is ignored and a too recent file is not remembered', () => {
    const dir = tempDir();
    const [dump] = sample as [DevDump];
    filledCache(dump, dir);
    const [identity] = readdirSync(dir).filter((name) => name.endsWith('.dwbid'));
    expect(identity).toBeDefined();
    for (const damaged of [Buffer.alloc(0), Buffer.from('DWBID1\nshort'), Buffer.alloc(39, 1)]) {
      writeFileSync(join(dir, identity as string), damaged);
      expect(loadThrough(dump, dir).counts).toEqual({ hits: 1, writes: 0, rejected: 0, recognised: 0 });
    }
    // Rewritten by that load: recognised again.
    expect(loadThrough(dump, dir).counts).toEqual({ hits: 1, writes: 0, rejected: 0, recognised: 1 });
    const fresh = { ...dump, path: join(tempDir(), 'fresh.sql'), name: 'fresh.sql' };
    copyFileSync(dump.path, fresh.path);
    const other = tempDir();
    loadThrough(fresh, other);
    expect(loadThrough(fresh, other).counts).toEqual({ hits: 1, writes: 0, rejected: 0, recognised: 0 });
    expect(readdirSync(other).filter((name) => name.endsWith('.dwbid'))).toEqual([]);
  });

  it('a dump that cannot be parsed fails with the same error each time and leaves no entry', () => {
    const dir = tempDir();
    const [dump] = sample as [DevDump];
    const broken = { ...dump, path: join(tempDir(), 'broken.sql'), name: 'db/broken.sql' };
    writeFileSync(broken.path, readFileSync(dump.path, 'utf8').replace(/CREATE TABLE\s+[`"]?goods[`"]?/i, 'CREATE TABLE goodies'));
    const attempt = (): string => {
      try {
        parsedDumpData(broken.path, broken.name, optionsOf(broken), openDumpCache({ dir }), quiet);
        return 'no error';
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    };
    const first = attempt();
    expect(first).toMatch(/^db\/broken\.sql:\d+:\d+: INSERT INTO unknown table goods/);
    expect(attempt()).toBe(first);
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
  });

  it('an unwritable folder is said once and the answers are still right', () => {
    const blocker = join(tempDir(), 'not-a-folder');
    writeFileSync(blocker, 'a file where the cache folder would be');
    const warnings: string[] = [];
    const cache = openDumpCache({ dir: join(blocker, 'dumps'), warn: (line) => warnings.push(line) });
    for (const dump of sample) expect(parsedDumpData(dump.path, dump.name, optionsOf(dump), cache, quiet)).toStrictEqual(parse(dump));
    cache.close();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^dump cache: cannot write .*not-a-folder\/dumps \((ENOTDIR|EEXIST)\); going on without caching$/);
    expect(cache.counts.writes).toBe(0);
  });

  it('keeps the folder within its bound, removing the least recently used entries first', () => {
    const dir = tempDir();
    const sizes: number[] = [];
    for (const [index, dump] of sample.entries()) {
      const { path } = filledCache(dump, dir);
      sizes.push(statSync(path).size);
      // Older entries are used earlier: distinct times, oldest first.
      const when = new Date(Date.now() - (sample.length - index) * 60_000);
      utimesSync(path, when, when);
    }
    // Read the oldest again: a hit makes it the most recently used.
    const first = sample[0] as DevDump;
    expect(loadThrough(first, dir).counts.hits).toBe(1);
    const extra = dumps.find((d) => d.scenario === 'locating' && d.kind === 'relational') as DevDump;
    const extraSize = encodeParsedDump(keyOf(extra), parse(extra)).length;
    // Room for the entry about to be written, the one just read and the newest of the rest.
    const bound = extraSize + (sizes[0] as number) + (sizes[3] as number) + 10;
    const cache = openDumpCache({ dir, maxBytes: bound });
    parsedDumpData(extra.path, extra.name, optionsOf(extra), cache, quiet);
    cache.close();
    const left = readdirSync(dir).filter((name) => !name.endsWith('.dwbid'));
    const total = left.reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
    expect(total).toBeLessThanOrEqual(bound);
    // The two least recently used went; the one just read, the newest of the rest and the one just written stay.
    expect(left.sort()).toEqual([extra, first, sample[3] as DevDump].map((d) => entryName(keyOf(d))).sort());
    expect(left.some((name) => name.endsWith('.tmp'))).toBe(false);
  });

  it('removes temporary files a run that died left an hour ago, and only those', () => {
    const dir = tempDir();
    const [dump] = sample as [DevDump];
    filledCache(dump, dir);
    const stale = join(dir, '.4242-1-dead.tmp');
    const fresh = join(dir, '.4243-1-busy.tmp');
    writeFileSync(stale, 'half an entry');
    writeFileSync(fresh, 'being written by another run');
    const hourAndMore = new Date(Date.now() - 61 * 60_000);
    utimesSync(stale, hourAndMore, hourAndMore);
    const cache = openDumpCache({ dir });
    const other = sample[1] as DevDump;
    parsedDumpData(other.path, other.name, optionsOf(other), cache, quiet);
    cache.close();
    expect(
      readdirSync(dir)
        .filter((name) => !name.endsWith('.dwbid'))
        .sort(),
    ).toEqual(['.4243-1-busy.tmp', entryName(keyOf(dump)), entryName(keyOf(other))].sort());
  });

  it('lives in DWB_DUMP_CACHE_DIR, else $XDG_CACHE_HOME/dwb/dumps, else ~/.cache/dwb/dumps', () => {
    expect(defaultDumpCacheDir({ DWB_DUMP_CACHE_DIR: '/x/cache', XDG_CACHE_HOME: '/xdg' })).toBe('/x/cache');
    expect(defaultDumpCacheDir({ XDG_CACHE_HOME: '/xdg' })).toBe(join('/xdg', 'dwb', 'dumps'));
    expect(defaultDumpCacheDir({})).toMatch(/[/\\]\.cache[/\\]dwb[/\\]dumps$/);
  });
});
