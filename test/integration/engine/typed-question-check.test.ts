import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { LoggedEvent } from '../../../src-main/audit/hash-chain';
import type { RunEvent } from '../../../src-main/contract/run';
import { sqliteFromDqaDump, tinySqlite } from '../../support/fixtures';
import { useSuiteTempDir, useTempDirs } from '../../support/temp';
import { runDwb } from '../../support/cli';
import { useScriptedOpenAiServers } from '../../support/lifecycle';

/**
 * A question typed as the analyst would type it (no --country, --home or --goods): the run
 * reads the simulator's parameters from its words and checks the decision, or records why it
 * did not ("not checked: …") in the run log, the progress lines and the reports.
 */
const suiteDir = useSuiteTempDir();
const tempDir = useTempDirs();
let locating = '';
let tiny = '';

beforeAll(() => {
  locating = sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', suiteDir());
  tiny = tinySqlite(suiteDir());
});

const serve = useScriptedOpenAiServers();

function questionFile(text: string): string {
  const path = join(tempDir(), 'question.txt');
  writeFileSync(path, text);
  return path;
}

function decisionOf(out: string): Extract<RunEvent, { type: 'decision' }> {
  const events = readFileSync(join(out, 'run-log.jsonl'), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as LoggedEvent).event);
  const decision = events.find((event): event is Extract<RunEvent, { type: 'decision' }> => event.type === 'decision');
  if (!decision) throw new Error('the run logged no decision');
  return decision;
}

async function report(out: string, format: 'md' | 'html'): Promise<string> {
  const path = join(tempDir(), `report.${format}`);
  const reported = await runDwb(['report', '--run', out, '--format', format, '--out', path]);
  expect(reported.stderr).toBe('');
  expect(reported.code).toBe(0);
  return readFileSync(path, 'utf8');
}

const run = (connection: string, question: string, baseUrl: string, out: string, extra: string[] = []) =>
  runDwb(['run', '--connection', connection, '--question-file', questionFile(question), '--technique', 'planrag', '--base-url', baseUrl, '--model', 'scripted', '--tool-mode', 'tools', '--simulator', 'compat', '--whatif', 'off', '--out', out, ...extra]);

const dqaQuestion =
  'Assume that you are the ruler of the country named "SWE". You and your competitions are on the system of trade in 1445.\nYou have one merchant to work on trade system. Our home node is "baltic_sea". where should I allocate my merchant to steer trade to "baltic_sea"?';

describe('a typed question gets the simulator check', () => {
  it('reads country and home node from the question, asks a non-candidate decision again, and checks the decision', async () => {
    const server = await serve([
      { toolCalls: [{ name: 'plan', arguments: { steps: ['Find the upstream nodes', 'Decide'] } }] },
      // "unknown" is no trade node: refused as in a question-cell run, since the question's parameters give the candidates.
      { toolCalls: [{ name: 'answer', arguments: { decision: 'unknown', rationale: 'No data was read.' } }] },
      { expectToolResultContains: ['"unknown" is not one of the candidates; the decision must be exactly one of: african_great_lakes, aleppo'], toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'krakow feeds baltic_sea.' } }] },
    ]);
    const out = tempDir();
    const result = await run(`sqlite:${locating}`, dqaQuestion, server.baseUrl, out);
    server.verify();
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('decision: krakow (simulator: optimal)');
    const decision = decisionOf(out);
    expect(decision.verification).toMatchObject({ decision: 'krakow', agrees: true, best: 'krakow' });
    expect(decision.unchecked).toBeUndefined();
    expect(await report(out, 'md')).toContain('**Status:** Answered · simulator: optimal');
    expect(await report(out, 'html')).toContain('Simulator: optimal');
  });

  it('says "not checked: no simulator recognises this schema" on data no simulator fits, in the log, the progress and every report', async () => {
    const server = await serve([
      { toolCalls: [{ name: 'plan', arguments: { steps: ['Compare regions', 'Decide'] } }] },
      { toolCalls: [{ name: 'answer', arguments: { decision: 'north', rationale: 'north has the most revenue.' } }] },
    ]);
    const out = tempDir();
    const result = await run(`sqlite:${tiny}`, 'Which region should we open the next store in?', server.baseUrl, out);
    server.verify();
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('decision: north (not checked: no simulator recognises this schema)');
    const decision = decisionOf(out);
    expect(decision.verification).toBeNull();
    expect(decision.unchecked).toBe('no simulator recognises this schema');
    const notebook = JSON.parse(readFileSync(join(out, 'notebook.json'), 'utf8')) as { cells: { kind: string; data: Record<string, unknown> }[] };
    expect(notebook.cells.find((cell) => cell.kind === 'decision')?.data['unchecked']).toBe('no simulator recognises this schema');
    expect(await report(out, 'md')).toContain('**Status:** Answered · not checked: no simulator recognises this schema');
    const html = await report(out, 'html');
    expect(html).toContain('Not checked: no simulator recognises this schema');
    const ipynbPath = join(tempDir(), 'report.ipynb');
    expect((await runDwb(['report', '--run', out, '--format', 'ipynb', '--out', ipynbPath])).code).toBe(0);
    expect(readFileSync(ipynbPath, 'utf8')).toContain('not checked: no simulator recognises this schema');
  });

  it('says which parameter the question lacks, and then takes any decision, as before', async () => {
    const server = await serve([
      { toolCalls: [{ name: 'plan', arguments: { steps: ['Decide'] } }] },
      { toolCalls: [{ name: 'answer', arguments: { decision: 'unknown', rationale: 'The home node is not given.' } }] },
    ]);
    const out = tempDir();
    const result = await run(`sqlite:${locating}`, 'We are the country named "SWE". Where should our merchant go?', server.baseUrl, out);
    server.verify();
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('decision: unknown (not checked: the question names no home node)');
    expect(decisionOf(out).unchecked).toBe('the question names no home node');
    expect(await report(out, 'md')).toContain('not checked: the question names no home node');
  });

  it('says the question names a country the data does not have, and refuses one given explicitly', async () => {
    const server = await serve([
      { toolCalls: [{ name: 'plan', arguments: { steps: ['Decide'] } }] },
      { toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'A guess.' } }] },
    ]);
    const out = tempDir();
    const typed = await run(`sqlite:${locating}`, dqaQuestion.replace('"SWE"', '"ATL"'), server.baseUrl, out);
    expect(typed.code).toBe(0);
    expect(decisionOf(out).unchecked).toBe('the country "ATL" the question names is not in this data');

    const refused = await run(`sqlite:${locating}`, dqaQuestion, server.baseUrl, tempDir(), ['--country', 'ATL']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('The country "ATL" given is not in this data: correct it or leave it empty');
    expect(refused.stderr).not.toMatch(/at .*\.js:\d+/);
  });
});
