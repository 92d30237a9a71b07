import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findChainBreak, type LoggedEvent } from '../../../src-main/audit/hash-chain';
import { runToDirectory } from '../../../src-main/engine/run-setup';
import { parseProviderSettings } from '../../../src-main/llm/settings';
import { readTranscript, transcriptFormat } from '../../../src-main/llm/transcript';
import { sqliteFromDqaDump } from '../../support/fixtures';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer } from '../../support/scripted-openai';
import { useSuiteTempDir, useTempDirs } from '../../support/temp';

const suiteDir = useSuiteTempDir();
const tempDir = useTempDirs();
let database = '';
beforeAll(() => {
  database = sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', suiteDir());
});

const servers: ScriptedOpenAiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const question = 'Where should SWE place its merchant to maximise profit at baltic_sea?';

describe('runToDirectory (the run set-up shared by the app, dwb run and the benchmark)', () => {
  it('writes notebook, chained log and transcript, and returns steps, tokens and wall time', async () => {
    const server = await startScriptedOpenAiServer([
      { toolCalls: [{ name: 'query', arguments: { query: "SELECT local_value FROM trade_node WHERE trade_node = 'baltic_sea'" } }], usage: { promptTokens: 100, completionTokens: 7 } },
      { expectToolResultContains: 'rows: 1', toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'It feeds the home node.' } }], usage: { promptTokens: 150, completionTokens: 11 } },
    ]);
    servers.push(server);
    const outDir = tempDir();
    const events: string[] = [];
    const result = await runToDirectory({
      outDir,
      question,
      rules: '',
      technique: 'iterrag',
      connection: { target: { engine: 'sqlite', path: database }, description: 'locating 1445' },
      model: { settings: parseProviderSettings({ baseUrl: server.baseUrl, model: 'scripted', toolMode: 'tools' }) },
      simulator: { rules: 'stated', known: { country: 'SWE', home: 'baltic_sea' } },
      whatIf: false,
      runId: 'run-directory-1',
      onEvent: (event) => events.push(event.type),
    });
    server.verify();
    expect(result).toMatchObject({ status: 'answered', decision: 'krakow', steps: 2, promptTokens: 250, completionTokens: 18, totalTokens: 268, runId: 'run-directory-1' });
    expect(result.wallTimeMs).toBeGreaterThan(0);
    expect(events[0]).toBe('run-start');
    expect(events.at(-1)).toBe('run-end');

    const log = readFileSync(join(outDir, 'run-log.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as LoggedEvent);
    expect(findChainBreak(log)).toBeNull();
    expect(log.map((entry) => entry.event.type)).toEqual(events);
    const notebook = JSON.parse(readFileSync(join(outDir, 'notebook.json'), 'utf8')) as { runId: string; cells: { kind: string }[] };
    expect(notebook.runId).toBe('run-directory-1');
    expect(notebook.cells.map((cell) => cell.kind)).toEqual(['question', 'query', 'observation', 'simulation', 'decision']);

    // The transcript it wrote replays, with no model, to the same decision.
    const replayDir = tempDir();
    const replayed = await runToDirectory({
      outDir: replayDir,
      question,
      rules: '',
      technique: 'iterrag',
      connection: { target: { engine: 'sqlite', path: database }, description: 'locating 1445' },
      model: { replay: readTranscript(readFileSync(join(outDir, 'transcript.jsonl'), 'utf8')), toolMode: 'tools' },
      simulator: { rules: 'off', known: {} },
      whatIf: false,
    });
    expect(replayed).toMatchObject({ status: 'answered', decision: 'krakow', steps: 2, promptTokens: 250, completionTokens: 18 });
  });

  it('writes its files also when the run fails, and says why', async () => {
    const outDir = tempDir();
    const result = await runToDirectory({
      outDir,
      question,
      rules: '',
      technique: 'singlerag',
      connection: { target: { engine: 'sqlite', path: database }, description: 'locating 1445' },
      model: { replay: readTranscript(emptyTranscript), toolMode: 'tools' },
      simulator: { rules: 'off', known: {} },
      whatIf: false,
    });
    expect(result.status).toBe('failed');
    expect(result.message).toMatch(/model call failed/i);
    expect(readFileSync(join(outDir, 'run-log.jsonl'), 'utf8')).toContain('"run-end"');
    expect(JSON.parse(readFileSync(join(outDir, 'notebook.json'), 'utf8'))).toMatchObject({ format: 'decision-workbench/notebook' });
  });
});

const emptyTranscript = `${JSON.stringify({ type: 'header', format: transcriptFormat, version: 1, provider: 'replay', createdAt: '2026-01-01T00:00:00.000Z', settings: null })}\n`;
