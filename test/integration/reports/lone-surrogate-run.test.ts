import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseStrictJson } from '../../../src-main/audit/strict-json';
import { runDwb } from '../../support/cli';
import { sqliteFromDqaDump } from '../../support/fixtures';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer } from '../../support/scripted-openai';
import { useSuiteTempDir } from '../../support/temp';

/**
 * Bundles are read strictly, lone surrogates refused; a model that writes "\ud83d" in its tool
 * call must not leave a run whose own bundle cannot be read. Its text is recorded with U+FFFD.
 */
const suiteDir = useSuiteTempDir();
const servers: ScriptedOpenAiServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

describe('a run whose model wrote a lone surrogate', () => {
  it('is logged, transcribed and bundled well-formed: dwb report writes the bundle and dwb verify reads it', async () => {
    const directory = suiteDir();
    const database = sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', directory);
    const question = join(directory, 'question.txt');
    writeFileSync(question, 'Where should SWE place its merchant?');
    const model = await startScriptedOpenAiServer([{ toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'cut inside a pair: \ud83d, and a lone low one: \ude00.' } }] }]);
    servers.push(model);
    const out = join(directory, 'run');
    const run = await runDwb(['run', '--connection', `sqlite:${database}`, '--question-file', question, '--technique', 'iterrag', '--base-url', model.baseUrl, '--model', 'scripted', '--tool-mode', 'tools', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    // Every line reads strictly: no lone surrogate was written (the raw tool-call text keeps its escape as text).
    for (const file of ['run-log.jsonl', 'transcript.jsonl']) {
      for (const line of readFileSync(join(out, file), 'utf8').trim().split('\n')) expect(() => parseStrictJson(line), file).not.toThrow();
    }
    expect(readFileSync(join(out, 'run-log.jsonl'), 'utf8')).toContain('cut inside a pair: \ufffd, and a lone low one: \ufffd.');

    const bundle = join(directory, 'bundle.json');
    const report = await runDwb(['report', '--run', out, '--format', 'json', '--out', bundle]);
    expect(report.code, report.stderr).toBe(0);
    const verified = await runDwb(['verify', '--allow-unsigned', bundle]);
    expect(verified.stdout.split('\n')[0], verified.stdout).toBe('verified (unsigned: the hashes hold, but nothing proves who made the bundle)');
    expect(readFileSync(bundle, 'utf8')).toContain('cut inside a pair: \ufffd, and a lone low one: \ufffd.');
  });
});
