import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDwb } from '../support/cli';
import { useTempDirs } from '../support/temp';
import { repoRoot, tinySqlite } from '../support/fixtures';

/**
 * Files the user names on the command line are read to a limit, whatever they are: a device that
 * never ends used to hang `dwb verify` while it filled memory; a named pipe (a process
 * substitution) is read like a file.
 */
const tempDir = useTempDirs();

describe('files named on the command line', () => {
  it('refuses a bundle, a question set or a secret file that never ends, with the limit, instead of hanging', async () => {
    const verify = await runDwb(['verify', '/dev/zero'], { timeoutMs: 60_000 });
    expect(verify.code).toBe(1);
    expect(verify.stderr).toBe('dwb verify: not-found: Cannot read the bundle /dev/zero: it holds more than 256 MB, the most read from such a file\n');
    const solve = await runDwb(['dqa', 'solve', '--questions', '/dev/zero', '--engine', 'simulator'], { timeoutMs: 60_000 });
    expect(solve.code).toBe(1);
    expect(solve.stderr).toContain('cannot read the questions file /dev/zero: it holds more than 256 MB, the most read from such a file');
    const report = await runDwb(['report', '--bundle', '/dev/zero', '--format', 'md', '--out', join(tempDir(), 'r.md')], { timeoutMs: 60_000 });
    expect(report.stderr).toContain('Cannot read the bundle /dev/zero: it holds more than 256 MB');
    const key = await runDwb(['query', '--connection', 'postgres://analyst@127.0.0.1:1/db', '--password-file', '/dev/zero', 'SELECT 1'], { timeoutMs: 60_000 });
    expect(key.code).not.toBe(0);
    expect(key.stderr).toContain('Cannot read --password-file /dev/zero: it holds more than 64 KB, the most read from such a file');
  });

  it('refuses a question file that is empty or not UTF-8 before any model is called', async () => {
    const dir = tempDir();
    const database = tinySqlite(dir);
    const common = ['run', '--connection', `sqlite:${database}`, '--technique', 'planrag', '--base-url', 'http://127.0.0.1:1/v1', '--model', 'm', '--out', join(dir, 'out')];
    writeFileSync(join(dir, 'empty.txt'), ' \n');
    const empty = await runDwb([...common, '--question-file', join(dir, 'empty.txt')]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toBe(`dwb run: invalid-request: --question-file ${join(dir, 'empty.txt')} holds no question: write the decision question in it\n`);
    writeFileSync(join(dir, 'latin1.txt'), Buffer.from('Where should SWE trade from Krak\xf3w?', 'latin1'));
    const latin1 = await runDwb([...common, '--question-file', join(dir, 'latin1.txt')]);
    expect(latin1.code).toBe(1);
    expect(latin1.stderr).toBe(`dwb run: not-found: Cannot read the question file ${join(dir, 'latin1.txt')}: it is not UTF-8 text: save it as UTF-8 and try again\n`);
  });

  it('says a dump that is not UTF-8 is not UTF-8, with the dump cache and without it alike', async () => {
    const dir = tempDir();
    const locating = join(repoRoot, 'fixtures', 'dqa', 'locating');
    mkdirSync(join(dir, 'db'));
    const dumpName = 'locating-1445-15b6e0aa.sql';
    const dump = readFileSync(join(locating, 'db', dumpName));
    const at = dump.indexOf('baltic_sea');
    writeFileSync(join(dir, 'db', dumpName), Buffer.concat([dump.subarray(0, at), Buffer.from([0xf3]), dump.subarray(at)]));
    const questions = (JSON.parse(readFileSync(join(locating, 'questions.json'), 'utf8')) as { rdb: string }[]).filter((question) => question.rdb.endsWith(dumpName));
    writeFileSync(join(dir, 'questions.json'), JSON.stringify(questions));
    const args = ['dqa', 'solve', '--questions', join(dir, 'questions.json'), '--engine', 'simulator', '--db', 'rdb'];
    const cached = await runDwb(args, { env: { DWB_DUMP_CACHE_DIR: join(dir, 'cache') } });
    const uncached = await runDwb([...args, '--no-dump-cache']);
    for (const result of [cached, uncached]) {
      expect(result.stdout).toContain(`error=cannot load db/${dumpName}: it is not UTF-8 text: save it as UTF-8 and try again`);
      expect(result.stdout).toContain(`accuracy: 0/${questions.length}`);
    }
  });

  it('solves a question set read from a named pipe, as from <(…) in a shell', async () => {
    const dir = tempDir();
    const locating = join(repoRoot, 'fixtures', 'dqa', 'locating');
    symlinkSync(join(locating, 'db'), join(dir, 'db'));
    const fifo = join(dir, 'questions.json');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const writer = spawn('sh', ['-c', `cat "${join(locating, 'questions.json')}" > "${fifo}"`]);
    const result = await runDwb(['dqa', 'solve', '--questions', fifo, '--engine', 'simulator', '--db', 'rdb', '--no-dump-cache'], { timeoutMs: 120_000 });
    writer.kill();
    expect(result.stderr).not.toContain('Cannot read');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('accuracy: 81/81');
    // The same set from a plain copy gives the same answers.
    mkdirSync(join(dir, 'plain'));
    symlinkSync(join(locating, 'db'), join(dir, 'plain', 'db'));
    copyFileSync(join(locating, 'questions.json'), join(dir, 'plain', 'questions.json'));
    const plain = await runDwb(['dqa', 'solve', '--questions', join(dir, 'plain', 'questions.json'), '--engine', 'simulator', '--db', 'rdb', '--no-dump-cache'], { timeoutMs: 120_000 });
    expect(plain.stdout).toBe(result.stdout.replaceAll(fifo, join(dir, 'plain', 'questions.json')));
  });
});
