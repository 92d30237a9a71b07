/**
 * A workbench owns what it opens (issue 27): after close() no worker process, socket or timer
 * it started is left, whatever it did before. Each test opens the workbench, makes it open the
 * things that hold the process (a SQLite worker process, DuckDB, a model call's sockets, a
 * decision run), closes it and waits for every handle it added to be released.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWorkbench, type Workbench } from '../../src-main/services/workbench';
import { OwnedResources } from '../../src-main/services/owned-resources';
import { expectNothingOutlives, heldResources, outlivedSince, type HeldResources } from '../support/outlived';
import { useScriptedOpenAiServers } from '../support/lifecycle';
import { useTempDirs } from '../support/temp';
import { until } from '../support/until';

const tempDir = useTempDirs();
const startModel = useScriptedOpenAiServers();

/** Opens a workbench on a fresh workspace (the demo's connections) with the scripted model saved, and starts a PlanRAG run. */
async function startRun(modelBaseUrl: string) {
  const workbench = openWorkbench({ workspaceDir: tempDir(), platform: { transport: 'websocket' } });
  const locating = (await workbench.invoke('connections/list', {})).find((connection) => connection.name.startsWith('DQA Locating'))!;
  await workbench.invoke('model/save', { settings: { baseUrl: modelBaseUrl, model: 'm', temperature: 0, maxTokens: 100, requestTimeoutMs: 60_000, maxRetries: 0, stream: true, toolMode: 'tools' } });
  const notebook = await workbench.invoke('notebooks/create', { title: 'Close' });
  const { runId } = await workbench.invoke('runs/start', { notebookId: notebook.id, connectionId: locating.id, question: 'Where should SWE place its merchant for baltic_sea?', technique: 'planrag', mode: 'auto' });
  return { workbench, locating, notebook, runId };
}

/** Closes the workbench, which must have held something (else the test proves nothing), and waits for all it held to be let go. */
async function closeLeavesNothing(workbench: Workbench, before: HeldResources): Promise<void> {
  expect(outlivedSince(before, heldResources())).not.toEqual([]);
  await workbench.close();
  await expectNothingOutlives(before, 'the workbench');
}

describe('a workbench closed', () => {
  it('leaves no worker process, socket or timer of a query, a CSV query and a decision run', async () => {
    const model = await startModel([
      { toolCalls: [{ name: 'plan', arguments: { steps: ['Look at the trade nodes', 'Decide'] } }] },
      { toolCalls: [{ name: 'query', arguments: { sql: 'SELECT trade_node FROM trade_node LIMIT 3' } }] },
      { toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'It feeds the home node.' } }] },
    ]);
    const before = heldResources();
    // A decision run (model sockets, the run's timers), then queries beside it.
    const { workbench, locating, notebook, runId } = await startRun(model.baseUrl);
    // A SQLite query runs in a worker process; a CSV file through DuckDB.
    const settings = { maxRows: 100, timeoutMs: 30_000 };
    const counted = await workbench.invoke('query/run', { requestId: 'q1', connectionId: locating.id, text: 'SELECT count(*) AS n FROM trade_node', settings });
    expect(counted.rows).toHaveLength(1);
    const csvPath = join(tempDir(), 'prices.csv');
    writeFileSync(csvPath, 'fruit,price\napple,3\npear,4\n');
    const csv = await workbench.invoke('connections/add', { name: 'Prices', target: { engine: 'duckdb', format: 'csv', path: csvPath } });
    const priced = await workbench.invoke('query/run', { requestId: 'q2', connectionId: csv.id, text: 'SELECT sum(price) AS total FROM prices', settings });
    expect(priced.rows).toEqual([[7]]);
    await until(async () => ((await workbench.invoke('runs/list', { notebookId: notebook.id })).find((run) => run.id === runId && run.status !== 'running') ? true : undefined));
    await closeLeavesNothing(workbench, before);
  }, 90_000);

  it('leaves nothing of a run stopped mid-call by close()', async () => {
    // The model never answers its first call: close() must stop the run and release its socket.
    const model = await startModel([{ holdUntil: new Promise(() => undefined), content: 'never sent' }]);
    const before = heldResources();
    const { workbench } = await startRun(model.baseUrl);
    await until(() => (model.requests.length > 0 ? true : undefined));
    await closeLeavesNothing(workbench, before);
  }, 90_000);
});

describe('OwnedResources', () => {
  it('closes last opened first, tries every close when one fails, and names the ones that failed', async () => {
    const owned = new OwnedResources();
    const closed: string[] = [];
    owned.own('the database', 'db', (value) => void closed.push(value));
    owned.own('the pool', 'pool', () => {
      closed.push('pool');
      throw new Error('socket busy');
    });
    owned.own('the runs', 'runs', async (value) => void closed.push(value));
    await expect(owned.closeAll()).rejects.toThrow('Closing the workbench failed for the pool: socket busy');
    expect(closed).toEqual(['runs', 'pool', 'db']);
    // Once closed, nothing is closed twice and nothing new can be opened.
    await expect(owned.closeAll()).rejects.toThrow('the pool');
    expect(closed).toEqual(['runs', 'pool', 'db']);
    expect(() => owned.own('a late one', 1, () => undefined)).toThrow('Cannot open a late one: the workbench is closing');
  });
});
