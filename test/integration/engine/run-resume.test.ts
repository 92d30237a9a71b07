import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findChainBreak, type LoggedEvent } from '../../../src-main/audit/hash-chain';
import { readTranscript } from '../../../src-main/llm/transcript';
import { startScriptedOpenAiServer } from '../../support/scripted-openai';
import { connectSocket, startServe, type ServeProcess } from '../../support/serve';
import { useTempDirs } from '../../support/temp';
import { useCleanups } from '../../support/lifecycle';
import { until } from '../../support/until';

const tempDir = useTempDirs();
const onCleanup = useCleanups();

type Client = Awaited<ReturnType<typeof connectSocket>>;

async function useModel(client: Client, baseUrl: string): Promise<void> {
  await client.invoke('model/save', { settings: { baseUrl, model: 'm', temperature: 0, maxTokens: 100, requestTimeoutMs: 10_000, maxRetries: 0, stream: false, toolMode: 'tools' } });
}

/** Points the workspace at the scripted model and starts "How many nodes?" on the demo's Locating data in a new notebook. */
async function startDemoRun(client: Client, baseUrl: string, title: string, options: { mode: 'auto' | 'step'; simulator?: { rules: 'off' } }) {
  await useModel(client, baseUrl);
  const locating = (await client.invoke('connections/list', {})).find((connection) => connection.name.startsWith('DQA Locating'))!;
  const notebook = await client.invoke('notebooks/create', { title });
  const { runId } = await client.invoke('runs/start', { notebookId: notebook.id, connectionId: locating.id, question: 'How many nodes?', technique: 'planrag', ...options });
  return { notebook, runId };
}

/** The notebook's run once it has ended. */
function untilEnded(client: Client, notebookId: string) {
  return until(async () => {
    const [run] = await client.invoke('runs/list', { notebookId });
    return run && run.status !== 'running' ? run : undefined;
  });
}

/**
 * `dwb serve` on a fresh workspace with a connected client; `killAndRestart()` ends it with
 * SIGKILL, as a crash would, and starts it again on the same workspace.
 */
async function launchApp() {
  const workspace = tempDir();
  let server: ServeProcess = await startServe(workspace);
  onCleanup(() => server.stop());
  let client = await connectSocket(server);
  return {
    workspace,
    client: (): Client => client,
    stop: (): Promise<void> => server.stop(),
    /** `whileStopped` changes the workspace as an older version would have left it. */
    killAndRestart: async (whileStopped?: () => void): Promise<void> => {
      await server.stop('SIGKILL');
      client.socket.terminate();
      whileStopped?.();
      server = await startServe(workspace);
      client = await connectSocket(server);
    },
  };
}

describe('a run interrupted by the app stopping', () => {
  it('is marked interrupted on the next start and resumes where it stood, chain and transcript intact', async () => {
    const model = await startScriptedOpenAiServer([
      { toolCalls: [{ name: 'plan', arguments: { steps: ['Count the nodes'] } }] },
      { toolCalls: [{ name: 'query', arguments: { query: 'SELECT count(*) AS n FROM trade_node' } }] },
      // After the restart the unfinished step is asked again, with the same conversation.
      { expectLastMessageContains: 'Plan recorded', toolCalls: [{ name: 'query', arguments: { query: 'SELECT count(*) AS n FROM trade_node' } }] },
      { expectToolResultContains: '80', toolCalls: [{ name: 'answer', arguments: { decision: '80', rationale: 'counted' } }] },
    ]);
    onCleanup(() => model.close());
    const app = await launchApp();
    const { notebook, runId } = await startDemoRun(app.client(), model.baseUrl, 'Interrupted', { mode: 'step' });
    await until(async () => (await app.client().invoke('runs/active', {}))[0]?.pendingReview ?? undefined);

    await app.killAndRestart();
    const client = app.client();
    const [interrupted] = await client.invoke('runs/list', { notebookId: notebook.id });
    expect(interrupted).toMatchObject({ id: runId, status: 'interrupted' });
    await useModel(client, model.baseUrl);
    await client.invoke('runs/resume', { runId });
    await until(async () => (await client.invoke('runs/active', {}))[0]?.pendingReview ?? undefined);
    await client.invoke('runs/set-mode', { runId, mode: 'auto' });
    expect(await untilEnded(client, notebook.id)).toMatchObject({ status: 'answered', decision: '80' });
    model.verify();
    await expect(client.invoke('runs/resume', { runId })).rejects.toMatchObject({ code: 'conflict' });
    const cells = (await client.invoke('notebooks/get', { id: notebook.id })).cells.map((cell) => cell.kind);
    expect(cells).toEqual(['question', 'plan', 'note', 'query', 'observation', 'decision']);
    await app.stop();

    const database = new Database(join(app.workspace, 'workspace.sqlite'), { readonly: true });
    const entries = (database.prepare('SELECT * FROM run_events WHERE run_id = ? ORDER BY seq').all(runId) as {
      run_id: string; seq: number; at: string; event: string; prev_hash: string; hash: string;
    }[]).map((row): LoggedEvent => ({ runId: row.run_id, seq: row.seq, at: row.at, event: JSON.parse(row.event) as LoggedEvent['event'], prevHash: row.prev_hash, hash: row.hash }));
    const transcript = readTranscript((database.prepare('SELECT line FROM run_transcripts WHERE run_id = ? ORDER BY seq').pluck().all(runId) as string[]).join(''));
    database.close();
    expect(findChainBreak(entries)).toBeNull();
    expect(entries.map((entry) => entry.event.type)).toContain('run-resume');
    expect(transcript.exchanges.map((exchange) => exchange.index)).toEqual([0, 1, 2, 3]);
  }, 90_000);

  it('resumes a run stored before technique options: its simulator and parameters read from the old top-level fields', async () => {
    const model = await startScriptedOpenAiServer([
      { toolCalls: [{ name: 'plan', arguments: { steps: ['Count the nodes'] } }] },
      { toolCalls: [{ name: 'query', arguments: { query: 'SELECT count(*) AS n FROM trade_node' } }] },
      { expectLastMessageContains: 'Plan recorded', toolCalls: [{ name: 'query', arguments: { query: 'SELECT count(*) AS n FROM trade_node' } }] },
      { expectToolResultContains: '80', toolCalls: [{ name: 'answer', arguments: { decision: '80', rationale: 'counted' } }] },
    ]);
    onCleanup(() => model.close());
    const app = await launchApp();
    const { notebook, runId } = await startDemoRun(app.client(), model.baseUrl, 'Stored the old way', { mode: 'step', simulator: { rules: 'off' } });
    await until(async () => (await app.client().invoke('runs/active', {}))[0]?.pendingReview ?? undefined);
    // The request as the version before wrote it: `simulatorRules` and `known` at the top, no `simulator`.
    await app.killAndRestart(() => {
      const database = new Database(join(app.workspace, 'workspace.sqlite'));
      const stored = JSON.parse(database.prepare('SELECT request FROM runs WHERE id = ?').pluck().get(runId) as string) as Record<string, unknown> & { simulator: { rules: string; known: object } };
      const { simulator, ...rest } = stored;
      database.prepare('UPDATE runs SET request = ? WHERE id = ?').run(JSON.stringify({ ...rest, simulatorRules: simulator.rules, known: { country: 'SWE' } }), runId);
      database.close();
    });
    const client = app.client();
    await useModel(client, model.baseUrl);
    await client.invoke('runs/resume', { runId });
    await until(async () => (await client.invoke('runs/active', {}))[0]?.pendingReview ?? undefined);
    await client.invoke('runs/set-mode', { runId, mode: 'auto' });
    expect(await untilEnded(client, notebook.id)).toMatchObject({ status: 'answered', decision: '80' });
    model.verify();
    await app.stop();
  }, 90_000);

  it('keeps the fidelity it was started with: a paper run resumed after a crash still sends temperature 0', async () => {
    const model = await startScriptedOpenAiServer([
      { toolCalls: [{ name: 'plan', arguments: { steps: ['Count the nodes'] } }] },
      { toolCalls: [{ name: 'query', arguments: { query: 'SELECT count(*) AS n FROM trade_node' } }] },
      { toolCalls: [{ name: 'query', arguments: { query: 'SELECT count(*) AS n FROM trade_node' } }] },
      { toolCalls: [{ name: 'answer', arguments: { decision: '80', rationale: 'counted' } }] },
    ]);
    onCleanup(() => model.close());
    const app = await launchApp();
    const warm = { baseUrl: model.baseUrl, model: 'm', temperature: 0.5, maxTokens: 100, requestTimeoutMs: 10_000, maxRetries: 0, stream: false, toolMode: 'tools' as const };
    await app.client().invoke('model/save', { settings: warm });
    const locating = (await app.client().invoke('connections/list', {})).find((connection) => connection.name.startsWith('DQA Locating'))!;
    const notebook = await app.client().invoke('notebooks/create', { title: 'Paper, interrupted' });
    const { runId } = await app.client().invoke('runs/start', { notebookId: notebook.id, connectionId: locating.id, question: 'How many nodes?', technique: 'planrag', mode: 'step', fidelity: 'paper' });
    await until(async () => (await app.client().invoke('runs/active', {}))[0]?.pendingReview ?? undefined);

    await app.killAndRestart();
    const client = app.client();
    await client.invoke('model/save', { settings: warm });
    await client.invoke('runs/resume', { runId });
    await until(async () => (await client.invoke('runs/active', {}))[0]?.pendingReview ?? undefined);
    await client.invoke('runs/set-mode', { runId, mode: 'auto' });
    expect(await untilEnded(client, notebook.id)).toMatchObject({ status: 'answered', decision: '80' });
    model.verify();
    expect(model.chatRequests().map((request) => request.chat.temperature)).toEqual([0, 0, 0, 0]);
  }, 90_000);

  it('killed while the model is answering, makes that same call again instead of starting over', async () => {
    const model = await startScriptedOpenAiServer([
      { toolCalls: [{ name: 'plan', arguments: { steps: ['Count the nodes'] } }] },
      // The app is killed while this answer is on its way (it never comes: the kill closes the socket)…
      { delayMs: Number.POSITIVE_INFINITY, toolCalls: [{ name: 'query', arguments: { query: 'SELECT count(*) AS n FROM trade_node' } }] },
      // …so the resumed run asks again from the very same conversation: the plan is not made twice.
      { expectLastMessageContains: 'Plan recorded', expectTools: ['query', 'replan', 'whatif', 'answer'], toolCalls: [{ name: 'query', arguments: { query: 'SELECT count(*) AS n FROM trade_node' } }] },
      { expectToolResultContains: '80', toolCalls: [{ name: 'answer', arguments: { decision: '80', rationale: 'counted' } }] },
    ]);
    onCleanup(() => model.close());
    const app = await launchApp();
    const { notebook, runId } = await startDemoRun(app.client(), model.baseUrl, 'Killed mid-call', { mode: 'auto', simulator: { rules: 'off' } });
    // The plan is in; the second model call is under way.
    await until(async () => ((await app.client().invoke('runs/active', {}))[0]?.step === 1 && model.chatRequests().length === 2 ? true : undefined));

    await app.killAndRestart();
    const client = app.client();
    await client.invoke('runs/resume', { runId });
    expect(await untilEnded(client, notebook.id)).toMatchObject({ status: 'answered', decision: '80' });
    model.verify();
    const cells = (await client.invoke('notebooks/get', { id: notebook.id })).cells.map((cell) => cell.kind);
    expect(cells).toEqual(['question', 'plan', 'note', 'query', 'observation', 'decision']);
  }, 90_000);
});
