import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, sqliteFromDqaDump } from '../../support/fixtures';
import { runDwb } from '../../support/cli';
import { recordedRunQuestion } from '../../support/recorded-run';
import { useSuiteTempDir, useTempDirs } from '../../support/temp';

/**
 * A run recorded by an earlier version (fixtures/runs/planrag-locating, made by
 * scripts/record-run-fixture.ts): whatever the engine becomes, its log, transcript, notebook
 * and sealed bundle must still be read, verified, reported and replayed.
 */
const recorded = join(repoRoot, 'fixtures', 'runs', 'planrag-locating');
const suiteDir = useSuiteTempDir();
const tempDir = useTempDirs();
let database = '';
let questionFile = '';

beforeAll(() => {
  database = sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', suiteDir());
  questionFile = join(suiteDir(), 'question.txt');
  writeFileSync(questionFile, recordedRunQuestion);
});

interface SavedCell {
  kind: string;
  author: string;
  source: string;
}
const cellsOf = (path: string): { kind: string; author: string; source: string }[] =>
  (JSON.parse(readFileSync(path, 'utf8')) as { cells: SavedCell[] }).cells.map(({ kind, author, source }) => ({ kind, author, source }));

describe('a run recorded by an earlier version', () => {
  it('still verifies as sealed, as the unsigned bundle it is', async () => {
    const result = await runDwb(['verify', '--allow-unsigned', join(recorded, 'bundle.json')]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^verified \(unsigned/);
    // Without --allow-unsigned nothing proves who made it, so it is refused.
    const strict = await runDwb(['verify', join(recorded, 'bundle.json')]);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/^not verified: the hashes hold, but the bundle is not signed/);
  });

  it('is caught when an event of its bundle is edited', async () => {
    const bundle = readFileSync(join(recorded, 'bundle.json'), 'utf8');
    expect(bundle).toContain('krakow feeds the home node');
    const tampered = join(tempDir(), 'tampered.json');
    writeFileSync(tampered, bundle.replace('krakow feeds the home node', 'krakow feeds the home node!'));
    const result = await runDwb(['verify', tampered]);
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).not.toMatch(/^verified/);
  });

  it('still renders from its run folder and from its bundle', async () => {
    const out = tempDir();
    const fromRun = await runDwb(['report', '--run', recorded, '--format', 'md', '--out', join(out, 'run.md')]);
    expect(fromRun.stderr).toBe('');
    const markdown = readFileSync(join(out, 'run.md'), 'utf8');
    expect(markdown).toContain('krakow');
    expect(markdown).toContain('SWE power in krakow');
    const fromBundle = await runDwb(['report', '--bundle', join(recorded, 'bundle.json'), '--format', 'html', '--out', join(out, 'bundle.html')]);
    expect(fromBundle.code).toBe(0);
    expect(readFileSync(join(out, 'bundle.html'), 'utf8')).toContain('krakow feeds the home node');
  });

  it('replays from its transcript, with no model, to the same notebook', async () => {
    const out = tempDir();
    const replay = await runDwb([
      'run', '--connection', `sqlite:${database}`, '--question-file', questionFile, '--technique', 'planrag', '--simulator', 'compat', '--country', 'SWE', '--home', 'baltic_sea',
      '--replay', join(recorded, 'transcript.jsonl'), '--out', out,
    ]);
    expect(replay.code).toBe(0);
    expect(replay.stdout.trim()).toBe('decision: krakow');
    expect(cellsOf(join(out, 'notebook.json'))).toEqual(cellsOf(join(recorded, 'notebook.json')));
  });
});
