/**
 * The built CLI loads a command's module, and so its database drivers, only when that command
 * runs: `dwb --help` and `dwb dqa solve` on dump files load no driver at all. Checked on the
 * real bundle (bin/dwb.js) by preloading a probe that writes, at exit, every module file the
 * process loaded (require.cache), and reading the packages off their node_modules paths.
 */
import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { dqaRoot, repoRoot } from '../support/fixtures';
import { useSuiteTempDir } from '../support/temp';

const execute = promisify(execFile);
const suiteDir = useSuiteTempDir();
const drivers = ['neo4j-driver', '@ladybugdb/core', '@duckdb/node-api', 'pg', 'mysql2', 'better-sqlite3', 'openai', 'ws'];

const probeSource = `'use strict';
const { writeFileSync } = require('node:fs');
process.on('exit', () => writeFileSync(process.env.DWB_MODULE_PROBE_OUT, JSON.stringify({ files: Object.keys(require.cache), builtins: process.moduleLoadList })));
`;

/** The npm packages (by name) whose files a `dwb …` run loaded, the built-in modules it loaded (`child_process`, …), and its exit code. */
async function packagesLoadedBy(args: string[]): Promise<{ code: number; packages: Set<string>; builtins: Set<string> }> {
  const dir = suiteDir();
  const probe = join(dir, 'probe.cjs');
  const out = join(dir, `modules-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(probe, probeSource);
  let code = 0;
  try {
    await execute(process.execPath, ['--require', probe, join(repoRoot, 'bin', 'dwb.js'), ...args], {
      env: { ...process.env, DWB_MODULE_PROBE_OUT: out },
      maxBuffer: 16 * 1024 * 1024,
      timeout: 120_000,
    });
  } catch (error) {
    code = (error as { code: number }).code;
  }
  const loaded = JSON.parse(readFileSync(out, 'utf8')) as { files: string[]; builtins: string[] };
  const files = loaded.files;
  const builtins = new Set(loaded.builtins.flatMap((entry) => (entry.startsWith('NativeModule ') ? [entry.slice('NativeModule '.length)] : [])));
  const packages = new Set<string>();
  for (const file of files) {
    const match = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)[\\/](?!.*[\\/]node_modules[\\/])/.exec(file);
    if (match) packages.add((match[1] as string).replace(/\\/g, '/'));
  }
  return { code, packages, builtins };
}

const driversIn = (packages: Set<string>): string[] => drivers.filter((name) => packages.has(name));

describe('the CLI loads database drivers only for the commands that use them', () => {
  it('the probe sees drivers a command does load (dwb dqa import loads its writers)', async () => {
    // Missing --questions: a usage error, but only after the import command's module (and its writers) loaded.
    const { code, packages } = await packagesLoadedBy(['dqa', 'import']);
    expect(code).toBe(2);
    expect(driversIn(packages).length).toBeGreaterThan(0);
  });

  it('dwb --help loads no driver and no other package', async () => {
    const { code, packages } = await packagesLoadedBy(['--help']);
    expect(code).toBe(0);
    expect([...packages]).toEqual([]);
  });

  it('dwb query --help prints that command\'s usage and loads no package', async () => {
    const { code, packages } = await packagesLoadedBy(['query', '--help']);
    expect(code).toBe(0);
    expect([...packages]).toEqual([]);
  });

  it('dwb query streaming a SQLite file loads better-sqlite3 alone, and neither child_process nor net', async () => {
    const path = join(suiteDir(), 'one.sqlite');
    const database = new Database(path);
    database.exec('CREATE TABLE t(x); INSERT INTO t VALUES (1);');
    database.close();
    const { code, packages, builtins } = await packagesLoadedBy(['query', '--format', 'csv', '--connection', `sqlite:${path}`, 'SELECT x FROM t']);
    expect(code).toBe(0);
    expect(driversIn(packages)).toEqual(['better-sqlite3']);
    // Read in this process (no worker process to start): the process machinery is not loaded at all.
    expect(builtins.has('worker_threads')).toBe(true);
    expect(builtins.has('child_process')).toBe(false);
    expect(builtins.has('net')).toBe(false);
  });

  it('dwb dqa solve on dump files loads no driver', async () => {
    const questions = join(dqaRoot(), 'locating', 'questions.json');
    const { code, packages } = await packagesLoadedBy(['dqa', 'solve', '--questions', questions, '--engine', 'simulator', '--db', 'rdb,gdb']);
    expect(code).toBe(0);
    expect(driversIn(packages)).toEqual([]);
  });
});
