/**
 * `dwb <command> --help` prints that command's own usage (a subcommand narrows it) and exits 0;
 * a mistyped option is refused with its name and a pointer to that help, exit 2.
 */
import { describe, expect, it } from 'vitest';
import { runDwb } from '../support/cli';

const cli = (...args: string[]) => runDwb(args, { timeoutMs: 30_000 });

describe('dwb <command> --help', () => {
  it.each([
    [['query', '--help'], /^usage: dwb query --connection URI/],
    [['query', '-h'], /^usage: dwb query --connection URI/],
    [['serve', '--help'], /^usage: dwb serve \[--port N\]/],
    [['report', '--help'], /^usage: dwb report \(--run DIR/],
    [['whatif', '--help'], /^usage: dwb whatif --connection/],
    [['dellma', 'solve', '--help'], /^usage: dwb dellma solve --problems/],
    [['playbook', 'train', '--help'], /^usage: dwb playbook train --questions/],
    [['actions', 'mine', '--help'], /^usage: dwb actions mine --questions/],
    [['keys', '--help'], /^usage: dwb keys create --name NAME/],
    [['verify', '--help'], /^usage: dwb verify /],
    [['run', '--help'], /^usage: dwb run --connection URI --question-file F/],
  ])('%j prints that command\'s usage', async (args, usage) => {
    const result = await cli(...args);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(usage);
    // Only that command: no other command's usage line.
    expect(result.stdout.match(/dwb [a-z]+ /g)?.every((words) => words === `dwb ${args[0]} `)).toBe(true);
  });

  it('dqa solve --help shows both solvers, dqa import --help only the import', async () => {
    const solve = await cli('dqa', 'solve', '--help');
    expect(solve.code).toBe(0);
    expect(solve.stdout).toContain('--engine simulator');
    expect(solve.stdout).toContain('--engine planrag');
    expect(solve.stdout).not.toContain('dwb dqa import');
    const imports = await cli('dqa', 'import', '--help');
    expect(imports.stdout.trim()).toMatch(/^usage: dwb dqa import --questions [^\n]*$/);
    const all = await cli('dqa', '--help');
    expect(all.stdout).toContain('dwb dqa solve');
    expect(all.stdout).toContain('dwb dqa import');
  });

  it('dwb run and dwb dqa solve list each technique\'s own flags, generated from its options declaration', async () => {
    for (const args of [['run', '--help'], ['dqa', 'solve', '--help']]) {
      const result = await cli(...args);
      expect(result.code).toBe(0);
      const lines = result.stdout.split('\n');
      expect(lines).toContain('technique options:');
      expect(lines.some((line) => /^ {2}--actions LIB\.json +\(pearl\) Plan with this action library file/.test(line))).toBe(true);
      expect(lines.some((line) => /^ {2}--variant pairs\|top1\|naive\|zero-shot\|cot\|sc +\(dellma\) The variant to run/.test(line))).toBe(true);
      expect(lines.some((line) => /^ {2}--sc-answers K +\(dellma\)/.test(line))).toBe(true);
    }
    // Commands that run no technique list none.
    expect((await cli('query', '--help')).stdout).not.toContain('technique options:');
  });

  it('--help after -- is a positional, not a request for help', async () => {
    const result = await cli('query', '--connection', 'sqlite:/no/such.sqlite', '--', '--help');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^dwb query: not-found: /);
  });

  it('an unknown option is refused by name, with where to look, exit 2', async () => {
    const result = await cli('query', '--conection', 'sqlite:x.sqlite', 'SELECT 1');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toBe("dwb query: invalid-request: Unknown option '--conection' (see dwb query --help)");
    const solve = await cli('dqa', 'solve', '--frobnicate');
    expect(solve.code).toBe(2);
    expect(solve.stderr.trim()).toMatch(/^dwb dqa: invalid-request: Unknown option '--frobnicate' \(see dwb dqa solve --help\)$/);
  });
});

// Issue 15: parseArgs alone kept the last of a repeated option, so `--connection A --connection B` silently ran on B.
describe('a repeated option', () => {
  it('is refused unless the option is a list', async () => {
    const twice = await cli('query', '--connection', 'sqlite:/nowhere/a.sqlite', '--connection', 'sqlite:/nowhere/b.sqlite', 'SELECT 1');
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('--connection is given 2 times: give it once');
    const shortAndLong = await cli('query', '-c', 'sqlite:/nowhere/a.sqlite', '--connection', 'sqlite:/nowhere/b.sqlite', 'SELECT 1');
    expect(shortAndLong.stderr).toContain('--connection is given 2 times');
    const run = await cli('run', '--max-steps', '3', '--max-steps', '4');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--max-steps is given 2 times');
  });

  it('is taken as a list where the option is one (dqa solve --questions A --questions B reads both)', async () => {
    const both = await cli('dqa', 'solve', '--engine', 'simulator', '--questions', '/nowhere/a/questions.json', '--questions', '/nowhere/b/questions.json');
    expect(both.code).not.toBe(0);
    expect(both.stderr).not.toContain('given 2 times');
    expect(both.stderr).toContain('/nowhere/a/questions.json');
  });
});
