import { spawnSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDwb } from '../../support/cli';
import { repoRoot } from '../../support/fixtures';
import { useTempDirs } from '../../support/temp';

/**
 * Issue 26, item 1: a dump a questions file names is read only when it is a regular file. A named
 * pipe there blocked the reader in open() for good (the app server's main thread, in a benchmark
 * or a playbook training; `dwb dqa solve` never returned).
 */
const tempDir = useTempDirs();

describe('a dump that is a named pipe', () => {
  it('is refused at once by dwb dqa solve, with the dump cache and without it, and leaves no reader on the pipe', async () => {
    const dir = tempDir();
    const locating = join(repoRoot, 'fixtures', 'dqa', 'locating');
    mkdirSync(join(dir, 'db'));
    const dumpName = 'locating-1445-15b6e0aa.sql';
    const pipe = join(dir, 'db', dumpName);
    expect(spawnSync('mkfifo', [pipe]).status).toBe(0);
    const questions = (JSON.parse(readFileSync(join(locating, 'questions.json'), 'utf8')) as { rdb: string }[]).filter((question) => question.rdb.endsWith(dumpName));
    writeFileSync(join(dir, 'questions.json'), JSON.stringify(questions));
    const args = ['dqa', 'solve', '--questions', join(dir, 'questions.json'), '--engine', 'simulator', '--db', 'rdb'];
    const cached = await runDwb(args, { env: { DWB_DUMP_CACHE_DIR: join(dir, 'cache') } });
    const uncached = await runDwb([...args, '--no-dump-cache']);
    for (const result of [cached, uncached]) {
      expect(result.stdout).toContain(`error=cannot load db/${dumpName}: it is a named pipe, not a regular file`);
      expect(result.stdout).toContain(`accuracy: 0/${questions.length}`);
    }
    // No process holds the pipe open for reading: a non-blocking writer finds none.
    expect(() => closeSync(openSync(pipe, constants.O_WRONLY | constants.O_NONBLOCK))).toThrow(expect.objectContaining({ code: 'ENXIO' }));
  });
});
