import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { verifyBundleText } from '../../../src-main/reports/verify-bundle';
import type { EventPayload } from '../../../src-main/contract/api';
import { openWorkbench, type Workbench } from '../../../src-main/services/workbench';
import { purposeOf } from '../../support/autoplan-script';
import { useCleanups } from '../../support/lifecycle';
import { startScriptedOpenAiServer } from '../../support/scripted-openai';
import { messageText, type ReceivedChatRequest, type ScriptedTurn } from '../../support/scripted-openai/script';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();
const onCleanup = useCleanups();
const PLAYBOOK = '1. Query the flows into the home node.\n2. Finish with the node that sends the most.';

async function runToEnd(workbench: Workbench, notebookId: string, connectionId: string, question: string): Promise<string> {
  const { runId } = await workbench.invoke('runs/start', { notebookId, connectionId, question, technique: 'iterrag', mode: 'auto' });
  for (const started = Date.now(); ; ) {
    const run = (await workbench.invoke('runs/list', { notebookId })).find((candidate) => candidate.id === runId);
    if (run && run.status !== 'running') return runId;
    if (Date.now() - started > 20_000) throw new Error('the run did not end');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Training replies: every job finishes with krakow at once; the update writes PLAYBOOK. */
function trainingModel(request: ReceivedChatRequest): ScriptedTurn {
  switch (purposeOf(request)) {
    case 'thought':
      return { content: 'I should finish with the node that sends the most' };
    case 'action':
      return { content: 'Finish[krakow]' };
    case 'update':
      return { content: PLAYBOOK };
    default:
      return { content: `${purposeOf(request)} of the job` };
  }
}

describe('playbooks from the analyst’s signed-off runs', () => {
  it('trains on the answered runs the analyst signed off on a connection, the signed-off decision being the reward', async () => {
    // The analyst's signing key is made at the first signed export: in a folder of the test's own.
    const previousConfigDir = process.env['DWB_CONFIG_DIR'];
    process.env['DWB_CONFIG_DIR'] = tempDir();
    onCleanup(async () => {
      // Back to the suite's own folder (vitest.config.ts), never to the user's.
      if (previousConfigDir === undefined) delete process.env['DWB_CONFIG_DIR'];
      else process.env['DWB_CONFIG_DIR'] = previousConfigDir;
    });
    const runner = await startScriptedOpenAiServer([
      { toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'most flow' } }] },
      { toolCalls: [{ name: 'answer', arguments: { decision: 'lubeck', rationale: 'most flow' } }] },
      { toolCalls: [{ name: 'answer', arguments: { decision: 'novgorod', rationale: 'never signed off' } }] },
    ]);
    const trainer = await startScriptedOpenAiServer(Array.from({ length: 100 }, () => trainingModel));
    const workbench = openWorkbench({ workspaceDir: tempDir(), platform: { transport: 'websocket' } });
    onCleanup(() => runner.close(), () => trainer.close(), () => workbench.close());
    const settings = (baseUrl: string) => ({ baseUrl, model: 'scripted', temperature: 0, maxTokens: 100, requestTimeoutMs: 5000, maxRetries: 0, stream: false, toolMode: 'tools' as const });
    await workbench.invoke('model/save', { settings: settings(runner.baseUrl) });
    const connections = await workbench.invoke('connections/list', {});
    const locating = connections.find((connection) => connection.name.startsWith('DQA Locating'))?.id ?? '';
    const building = connections.find((connection) => connection.name.startsWith('DQA Building'))?.id ?? '';
    const notebook = await workbench.invoke('notebooks/create', { title: 'History' });
    const first = await runToEnd(workbench, notebook.id, locating, 'Where should SWE place its merchant for baltic_sea?');
    const second = await runToEnd(workbench, notebook.id, locating, 'Where should DAN place its merchant for lubeck?');
    await runToEnd(workbench, notebook.id, locating, 'Where should GOT place its merchant?');
    await expect(workbench.invoke('playbooks/train-from-runs', { connectionId: locating, batchSize: 2 })).rejects.toThrow(/No signed-off run on DQA Locating 1445 \(demo\)/);

    const ada = { name: 'Ada Analyst', comment: 'Checked.' };
    for (const runId of [first, second]) await workbench.invoke('reports/export', { notebookId: notebook.id, runId, format: 'md', signOff: ada });
    await workbench.invoke('reports/export', { notebookId: notebook.id, runId: first, format: 'html', signOff: ada });
    await expect(workbench.invoke('playbooks/train-from-runs', { connectionId: building, batchSize: 2 })).rejects.toThrow(/No signed-off run on DQA Building/);

    await workbench.invoke('model/save', { settings: settings(trainer.baseUrl) });
    const ended = new Promise<EventPayload<'playbooks-change'>>((resolve) => {
      const stop = workbench.subscribe((event, payload) => {
        const change = payload as EventPayload<'playbooks-change'>;
        if (event === 'playbooks-change' && change.training && change.training.status !== 'running') {
          stop();
          resolve(change);
        }
      });
    });
    const training = await workbench.invoke('playbooks/train-from-runs', { connectionId: locating, batchSize: 2 });
    expect(training).toMatchObject({ source: '2 signed-off run(s) on DQA Locating 1445 (demo)', db: 'rdb', status: 'running' });
    expect((await ended).training).toMatchObject({ status: 'finished', versions: 1, message: '1 version(s) from 2 signed-off run(s)' });
    expect(trainer.failures).toEqual([]);

    const task = (await workbench.invoke('playbooks/list', {})).find((entry) => entry.scenario === 'locating' && entry.db === 'rdb');
    expect(task?.versions.map((version) => [version.questionIds, version.successRate, version.status])).toEqual([[[first, second], 0.5, 'proposed']]);
    const detail = await workbench.invoke('playbooks/get', { hash: task?.versions[0]?.hash ?? '' });
    expect(detail.playbook).toBe(PLAYBOOK);
    expect(detail.jobs.map((job) => [job.questionId, job.decision, job.success])).toEqual([
      [first, 'krakow', true],
      [second, 'krakow', false],
    ]);
    // The signed-off decision is the summary's training hint, and the runs' questions are the objectives.
    const summaries = trainer.chatRequests().filter((request) => purposeOf(request) === 'summary').map((request) => request.chat.messages.map(messageText).join('\n'));
    expect(summaries).toHaveLength(2);
    expect(summaries[0]).toContain('Training hint (this job only): the best decision was krakow.');
    expect(summaries[0]).toContain('Where should SWE place its merchant for baltic_sea?');
    expect(summaries[1]).toContain('the best decision was lubeck.');
  }, 120_000);

  it('trains a playbook for the analyst’s own data (no DQA scenario) as the connection’s task type, and an AutoPlan run there follows it once pinned', async () => {
    const previousConfigDir = process.env['DWB_CONFIG_DIR'];
    process.env['DWB_CONFIG_DIR'] = tempDir();
    onCleanup(async () => {
      // Back to the suite's own folder (vitest.config.ts), never to the user's.
      if (previousConfigDir === undefined) delete process.env['DWB_CONFIG_DIR'];
      else process.env['DWB_CONFIG_DIR'] = previousConfigDir;
    });
    const shop = join(tempDir(), 'shop.sqlite');
    const database = new Database(shop);
    database.exec(`
      CREATE TABLE product (name TEXT PRIMARY KEY, margin REAL NOT NULL, stock INTEGER NOT NULL);
      INSERT INTO product VALUES ('widget', 0.4, 3), ('gadget', 0.1, 50), ('gizmo', 0.25, 0);
    `);
    database.close();
    const answer = (decision: string): ScriptedTurn => ({ toolCalls: [{ name: 'answer', arguments: { decision, rationale: 'margin and stock' } }] });
    const runner = await startScriptedOpenAiServer([answer('widget'), answer('gizmo')]);
    const ownPlaybook = '1. Query the products with their margin and stock.\n2. Finish with the product that needs stock most.';
    const trainer = await startScriptedOpenAiServer(
      Array.from({ length: 100 }, () => (request: ReceivedChatRequest): ScriptedTurn => {
        if (purposeOf(request) === 'action') return { content: 'Finish[widget]' };
        if (purposeOf(request) === 'update') return { content: ownPlaybook };
        return { content: `${purposeOf(request)} of the job` };
      }),
    );
    const follower = await startScriptedOpenAiServer([{ content: 'Step 2: finish', toolCalls: [{ name: 'answer', arguments: { decision: 'widget', rationale: 'needs stock' } }] }]);
    const workbench = openWorkbench({ workspaceDir: tempDir(), platform: { transport: 'websocket' } });
    onCleanup(() => runner.close(), () => trainer.close(), () => follower.close(), () => workbench.close());
    const settings = (baseUrl: string) => ({ baseUrl, model: 'scripted', temperature: 0, maxTokens: 100, requestTimeoutMs: 5000, maxRetries: 0, stream: false, toolMode: 'tools' as const });
    await workbench.invoke('model/save', { settings: settings(runner.baseUrl) });
    const connection = await workbench.invoke('connections/add', { name: 'Shop', target: { engine: 'sqlite', path: shop } });
    const notebook = await workbench.invoke('notebooks/create', { title: 'Own history' });
    const first = await runToEnd(workbench, notebook.id, connection.id, 'Which product should we restock first?');
    const second = await runToEnd(workbench, notebook.id, connection.id, 'Which product is out of stock?');
    // Nothing signed off on this data yet: a clear refusal that names the connection, and nothing stored.
    await expect(workbench.invoke('playbooks/train-from-runs', { connectionId: connection.id, batchSize: 2 })).rejects.toThrow(/No signed-off run on Shop: sign off a run's report/);
    expect((await workbench.invoke('playbooks/list', {})).map((task) => task.scenario)).toEqual(['locating', 'locating', 'building', 'building']);

    for (const runId of [first, second]) await workbench.invoke('reports/export', { notebookId: notebook.id, runId, format: 'md', signOff: { name: 'Ada Analyst', comment: 'Checked.' } });
    await workbench.invoke('model/save', { settings: settings(trainer.baseUrl) });
    const ended = new Promise<EventPayload<'playbooks-change'>>((resolve) => {
      const stop = workbench.subscribe((event, payload) => {
        const change = payload as EventPayload<'playbooks-change'>;
        if (event === 'playbooks-change' && change.training && change.training.status !== 'running') {
          stop();
          resolve(change);
        }
      });
    });
    expect(await workbench.invoke('playbooks/train-from-runs', { connectionId: connection.id, batchSize: 2 })).toMatchObject({ source: '2 signed-off run(s) on Shop', db: 'rdb' });
    expect((await ended).training).toMatchObject({ status: 'finished', versions: 1 });
    expect(trainer.failures).toEqual([]);
    // The task is described by the connection's name in the prompts, never as a DQA scenario.
    const update = trainer.chatRequests().find((request) => purposeOf(request) === 'update');
    expect(update?.chat.messages.map(messageText).join('\n')).toContain('questions on Shop (relational)');

    const own = (await workbench.invoke('playbooks/list', {})).find((task) => task.scenario === `conn-${connection.id}`);
    expect(own?.db).toBe('rdb');
    expect(own?.versions.map((version) => [version.questionIds, version.successRate, version.status])).toEqual([[[first, second], 0.5, 'proposed']]);
    const hash = own?.versions[0]?.hash ?? '';
    await expect(workbench.invoke('playbooks/pin', { hash })).rejects.toThrow(/is proposed: only an accepted version can be pinned/);
    await workbench.invoke('playbooks/review', { hash, action: 'accept' });
    expect((await workbench.invoke('playbooks/pin', { hash })).pinned).toBe(hash);

    await workbench.invoke('model/save', { settings: settings(follower.baseUrl) });
    const { runId } = await workbench.invoke('runs/start', { notebookId: notebook.id, connectionId: connection.id, question: 'Which product should we restock now?', technique: 'autoplan', mode: 'auto' });
    for (const started = Date.now(); ; ) {
      const run = (await workbench.invoke('runs/list', { notebookId: notebook.id })).find((candidate) => candidate.id === runId);
      if (run && run.status !== 'running') break;
      if (Date.now() - started > 20_000) throw new Error('the run did not end');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(follower.failures).toEqual([]);
    const opening = messageText(follower.chatRequests()[0]?.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });
    expect(opening).toContain(ownPlaybook.split('\n')[0]);
    const exported = await workbench.invoke('reports/export', { notebookId: notebook.id, runId, format: 'json', signOff: null });
    const verdict = verifyBundleText(readFileSync(exported?.path ?? '', 'utf8'));
    if (!verdict.ok) throw new Error('the exported bundle does not verify');
    const start = verdict.bundle.events[0]?.event as { type: string; playbook?: { version: string | null; text: string } };
    expect(start.type).toBe('run-start');
    expect(start.playbook).toMatchObject({ version: hash, text: ownPlaybook });
  }, 120_000);
});
