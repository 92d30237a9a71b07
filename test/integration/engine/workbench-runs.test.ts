import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src-main/contract/run';
import type { EventName, EventPayload } from '../../../src-main/contract/api';
import { openWorkbench, type Workbench } from '../../../src-main/services/workbench';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer } from '../../support/scripted-openai';
import type { ScriptStep } from '../../support/scripted-openai/script';
import { useTempDirs } from '../../support/temp';
import { useCleanups } from '../../support/lifecycle';
import { until } from '../../support/until';

const tempDir = useTempDirs();
const onCleanup = useCleanups();

async function setup(script: ScriptStep[]) {
  const server: ScriptedOpenAiServer = await startScriptedOpenAiServer(script);
  const workspaceDir = tempDir();
  const workbench: Workbench = openWorkbench({ workspaceDir, platform: { transport: 'websocket' } });
  onCleanup(() => server.close(), () => workbench.close());
  const events: { event: EventName; payload: unknown }[] = [];
  workbench.subscribe((event, payload) => events.push({ event, payload }));
  const connections = await workbench.invoke('connections/list', {});
  const locating = connections.find((connection) => connection.name.startsWith('DQA Locating'))!;
  const notebook = await workbench.invoke('notebooks/create', { title: 'Run' });
  return { server, workbench, events, locating, notebook, workspaceDir };
}

/** A run's run-start event as the workspace database holds it. */
function storedRunStart(workspaceDir: string, runId: string): Extract<RunEvent, { type: 'run-start' }> {
  const database = new Database(join(workspaceDir, 'workspace.sqlite'), { readonly: true });
  try {
    const rows = database.prepare('SELECT event FROM run_events WHERE run_id = ? ORDER BY seq').pluck().all(runId) as string[];
    const start = rows.map((row) => JSON.parse(row) as RunEvent).find((event) => event.type === 'run-start');
    if (start?.type !== 'run-start') throw new Error(`run ${runId} has no run-start`);
    return start;
  } finally {
    database.close();
  }
}

const lastProgress = (events: { event: EventName; payload: unknown }[]) =>
  events.filter((entry) => entry.event === 'run-progress').at(-1)?.payload as EventPayload<'run-progress'> | undefined;

describe('decision runs in the workspace', () => {
  it('refuses to start before a model endpoint is configured', async () => {
    const { workbench, locating, notebook } = await setup([]);
    await expect(
      workbench.invoke('runs/start', { notebookId: notebook.id, connectionId: locating.id, question: 'q', technique: 'planrag', mode: 'auto' }),
    ).rejects.toThrow('Set up a model endpoint first');
  });

  it('lists the registered techniques and refuses a run of one it does not have, storing nothing', async () => {
    const { workbench, server, locating, notebook } = await setup([]);
    const listed = await workbench.invoke('runs/techniques', {});
    expect(listed.map(({ id, label, summary }) => ({ id, label, summary }))).toEqual([
      { id: 'singlerag', label: 'SingleRAG', summary: 'One retrieval query, then an answer.' },
      { id: 'iterrag', label: 'IterRAG (ReAct)', summary: 'Thought, query, observation, repeated until the model answers.' },
      { id: 'planrag', label: 'PlanRAG', summary: expect.stringContaining('A plan first') },
      { id: 'planrag-norp', label: 'PlanRAG without re-planning', summary: expect.stringContaining('never revised') },
      { id: 'plan-dag', label: 'Plan*RAG', summary: expect.stringContaining('level by level in parallel') },
      { id: 'plan-dag-faithful', label: 'Plan*RAG (LLM tag rewrite)', summary: expect.stringContaining('LLM rewrite') },
      { id: 'plan-dag-base', label: 'Plan*RAG-Base (shared retrieval)', summary: expect.stringContaining('retrieved once') },
      { id: 'plan-dag-react', label: 'Plan*-IterRAG (ReAct per node)', summary: expect.stringContaining('ReAct loop') },
      { id: 'plan-dag-replan', label: 'Plan*RAG with re-planning [ext]', summary: expect.stringContaining('re-plans the remaining graph') },
      { id: 'pearl', label: 'Pearl', summary: expect.stringContaining('small program over a library of typed actions') },
      { id: 'autoplan', label: 'AutoPlan', summary: expect.stringContaining('playbook learned from past questions') },
      { id: 'dellma', label: 'DeLLMa', summary: expect.stringContaining('Decides under uncertainty') },
    ]);
    // Each carries its extensions from its definition, with their defaults at paper fidelity, for the Fidelity setting.
    const extensionsOf = (id: string) => listed.find((technique) => technique.id === id)?.fidelity.extensions.map((extension) => `${extension.id}${extension.paper ? ' (paper)' : ''}`);
    expect(extensionsOf('planrag')).toEqual(['query-feedback', 'simulate-tool', 'whatif-tool']);
    expect(extensionsOf('plan-dag')).toEqual(['query-feedback']);
    expect(extensionsOf('autoplan')).toEqual(['query-feedback (paper)', 'simulate-tool', 'whatif-tool']);
    expect(extensionsOf('pearl')).toEqual(['query-feedback', 'pearl-query-retry', 'pearl-parallel-steps', 'pearl-planrag-fallback']);
    expect(extensionsOf('dellma')).toEqual(['query-feedback', 'dellma-option-factors (paper)']);
    expect(listed.find((technique) => technique.id === 'pearl')?.fidelity.paperCallTokens).toEqual({ plan: 256, step: 512, mapping: 512 });
    await workbench.invoke('model/save', { settings: { baseUrl: server.baseUrl, model: 'm', temperature: 0, maxTokens: 100, requestTimeoutMs: 5000, maxRetries: 0, stream: true, toolMode: 'tools' } });
    await expect(
      workbench.invoke('runs/start', { notebookId: notebook.id, connectionId: locating.id, question: 'q', technique: 'pearl-unknown', mode: 'auto' }),
    ).rejects.toThrow('No technique "pearl-unknown": the techniques are singlerag, iterrag, planrag, planrag-norp, plan-dag, plan-dag-faithful, plan-dag-base, plan-dag-react, plan-dag-replan, pearl, autoplan, dellma');
    await expect(
      workbench.invoke('runs/start', { notebookId: notebook.id, connectionId: locating.id, question: 'q', technique: 'Not An Id', mode: 'auto' }),
    ).rejects.toThrow(/technique id/);
    expect(await workbench.invoke('runs/list', { notebookId: notebook.id })).toEqual([]);
  });

  it('refuses an AutoPlan run when no playbook is pinned for the data, storing nothing and asking the model nothing', async () => {
    const { workbench, server, locating, notebook } = await setup([]);
    await workbench.invoke('model/save', { settings: { baseUrl: server.baseUrl, model: 'm', temperature: 0, maxTokens: 100, requestTimeoutMs: 5000, maxRetries: 0, stream: true, toolMode: 'tools' } });
    const refused = workbench.invoke('runs/start', { notebookId: notebook.id, connectionId: locating.id, question: 'Where?', technique: 'autoplan', mode: 'auto' });
    await expect(refused).rejects.toMatchObject({ code: 'invalid-request' });
    await expect(refused).rejects.toThrow('AutoPlan follows a learned playbook and has none: none was chosen for the run and none is pinned for this data');
    expect(await workbench.invoke('runs/list', { notebookId: notebook.id })).toEqual([]);
    expect(server.chatRequests()).toHaveLength(0);
  });

  it('keeps the API key out of the settings it shows, and out of the database in browser mode', async () => {
    const { workbench, server } = await setup([]);
    const view = await workbench.invoke('model/save', { settings: { baseUrl: server.baseUrl, model: 'm', temperature: 0, maxTokens: 100, requestTimeoutMs: 5000, maxRetries: 0, stream: true, toolMode: 'tools' }, apiKey: 'sk-secret' });
    expect(view).toMatchObject({ hasApiKey: true, secretsPersistent: false, settings: { model: 'm' } });
    expect(JSON.stringify(view)).not.toContain('sk-secret');
    expect(view.presets.map((preset) => preset.id)).toEqual(['ollama', 'lm-studio', 'llama-cpp', 'vllm', 'openai', 'local']);
  });

  it('runs PlanRAG in step mode: waits for review, takes an edited query, writes cells and the run log', async () => {
    const { workbench, server, events, locating, notebook } = await setup([
      { toolCalls: [{ name: 'plan', arguments: { steps: ['Look at krakow'] } }] },
      { toolCalls: [{ name: 'query', arguments: { query: 'SELECT 1' } }] },
      { expectToolResultContains: ['The analyst replaced your query', '4.777'], toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'value 4.777' } }] },
    ]);
    await workbench.invoke('model/save', { settings: { baseUrl: server.baseUrl, model: 'm', temperature: 0, maxTokens: 100, requestTimeoutMs: 5000, maxRetries: 0, stream: true, toolMode: 'tools' } });
    const { runId } = await workbench.invoke('runs/start', { notebookId: notebook.id, connectionId: locating.id, question: 'Where?', rules: 'Rules.', technique: 'planrag', mode: 'step' });

    const pending = await until(() => lastProgress(events)?.pendingReview ?? undefined);
    expect(pending).toMatchObject({ subject: 'query', query: 'SELECT 1' });
    // The review panel edits the pending query in the connection's language.
    expect((await workbench.invoke('runs/active', {}))[0]).toMatchObject({ runId, status: 'running', queryLanguage: 'sql' });
    await workbench.invoke('runs/review', { runId, decision: { action: 'edit', query: "SELECT local_value FROM trade_node WHERE trade_node = 'krakow'" } });

    const done = await until(() => (lastProgress(events)?.status === 'answered' ? lastProgress(events) : undefined));
    expect(done.pendingReview).toBeNull();
    server.verify();
    const cells = (await workbench.invoke('notebooks/get', { id: notebook.id })).cells;
    // The edit keeps the model's original in an analyst note just before the analyst's query.
    expect(cells.map((cell) => `${cell.kind}/${cell.author}`)).toEqual(['question/analyst', 'plan/model', 'note/analyst', 'query/analyst', 'observation/engine', 'decision/model']);
    expect(cells[2]?.source).toContain('SELECT 1');
    expect(cells[3]?.output).toMatchObject({ status: 'ok', result: { rows: [[4.777]] } });
    expect(cells[5]?.data).toMatchObject({ decision: 'krakow', evidence: [cells[3]?.id] });
    expect(events.filter((entry) => entry.event === 'cell-change').length).toBeGreaterThanOrEqual(5);
    const [run] = await workbench.invoke('runs/list', { notebookId: notebook.id });
    expect(run).toMatchObject({ id: runId, status: 'answered', decision: 'krakow', mode: 'step' });
    // The history keeps how the decision was checked: "Where?" names no country, so it was not.
    expect(run?.check).toEqual({ checked: false, reason: expect.stringContaining('the question names no country') as string });
    await expect(workbench.invoke('runs/review', { runId, decision: { action: 'approve' } })).rejects.toThrow(`No run ${runId} is going`);
  });

  it('runs/start carries the fidelity: paper sends temperature 0 and offers no simulate tool, the product default the settings and simulate; both recorded', async () => {
    const turns: ScriptStep[] = [
      { toolCalls: [{ name: 'plan', arguments: { steps: ['Look at krakow'] } }] },
      { toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'It feeds the home node.' } }] },
    ];
    const { workbench, server, events, locating, notebook, workspaceDir } = await setup([...turns, ...turns]);
    await workbench.invoke('model/save', { settings: { baseUrl: server.baseUrl, model: 'm', temperature: 0.5, maxTokens: 100, requestTimeoutMs: 5000, maxRetries: 0, stream: true, toolMode: 'tools' } });
    const ask = { notebookId: notebook.id, connectionId: locating.id, question: 'Where should SWE place its merchant to maximise profit at baltic_sea?', technique: 'planrag', mode: 'auto' as const, simulator: { known: { country: 'SWE', home: 'baltic_sea' } } };
    const finished = (runId: string) => until(() => (events.some((entry) => entry.event === 'run-progress' && (entry.payload as EventPayload<'run-progress'>).runId === runId && (entry.payload as EventPayload<'run-progress'>).status === 'answered') ? true : undefined));

    const paper = await workbench.invoke('runs/start', { ...ask, fidelity: 'paper' });
    await finished(paper.runId);
    const product = await workbench.invoke('runs/start', ask);
    await finished(product.runId);
    server.verify();
    const requests = server.chatRequests();
    expect(requests.map((request) => request.chat.temperature)).toEqual([0, 0, 0.5, 0.5]);
    const tools = requests.map((request) => (request.chat.tools ?? []).map((tool) => tool.function.name));
    expect(tools[1]).not.toContain('simulate');
    expect(tools[3]).toContain('simulate');
    expect(storedRunStart(workspaceDir, paper.runId).fidelity).toMatchObject({ fidelity: 'paper', temperature: 0, extensions: expect.arrayContaining([{ id: 'simulate-tool', label: 'Simulate tool offered', on: false }]) });
    expect(storedRunStart(workspaceDir, product.runId).fidelity).toMatchObject({ fidelity: 'product', temperature: null, extensions: expect.arrayContaining([{ id: 'simulate-tool', label: 'Simulate tool offered', on: true }]) });
    await expect(workbench.invoke('runs/start', { ...ask, fidelity: 'exact' as 'paper' })).rejects.toThrow(/fidelity/);
  });

  it('stops a run waiting for review', async () => {
    const { workbench, server, events, locating, notebook } = await setup([
      { toolCalls: [{ name: 'plan', arguments: { steps: ['a'] } }] },
      { toolCalls: [{ name: 'query', arguments: { query: 'SELECT 1' } }] },
    ]);
    await workbench.invoke('model/save', { settings: { baseUrl: server.baseUrl, model: 'm', temperature: 0, maxTokens: 100, requestTimeoutMs: 5000, maxRetries: 0, stream: false, toolMode: 'tools' } });
    const { runId } = await workbench.invoke('runs/start', { notebookId: notebook.id, connectionId: locating.id, question: 'Where?', technique: 'planrag', mode: 'step' });
    await until(() => lastProgress(events)?.pendingReview ?? undefined);
    await workbench.invoke('runs/stop', { runId });
    const done = await until(() => (lastProgress(events)?.status !== 'running' ? lastProgress(events) : undefined));
    expect(done.status).toBe('stopped');
    const cells = (await workbench.invoke('notebooks/get', { id: notebook.id })).cells;
    expect(cells.at(-1)).toMatchObject({ kind: 'note', author: 'engine' });
    expect(cells.at(-1)?.source).toContain('Run ended: stopped');
  });

  it('pauses an automatic run at the next query and resumes it', async () => {
    // The model plans only once the run is paused, however slow the machine.
    let paused = (): void => undefined;
    const pausedPromise = new Promise<void>((resolve) => (paused = resolve));
    const { workbench, server, events, locating, notebook } = await setup([
      { holdUntil: pausedPromise, toolCalls: [{ name: 'plan', arguments: { steps: ['a'] } }] },
      { toolCalls: [{ name: 'query', arguments: { query: 'SELECT 7 AS seven' } }] },
      { expectToolResultContains: '7', toolCalls: [{ name: 'answer', arguments: { decision: 'seven', rationale: 'r' } }] },
    ]);
    await workbench.invoke('model/save', { settings: { baseUrl: server.baseUrl, model: 'm', temperature: 0, maxTokens: 100, requestTimeoutMs: 5000, maxRetries: 0, stream: false, toolMode: 'tools' } });
    const { runId } = await workbench.invoke('runs/start', { notebookId: notebook.id, connectionId: locating.id, question: 'q', technique: 'planrag', mode: 'auto' });
    await workbench.invoke('runs/set-mode', { runId, mode: 'step' });
    paused();
    const pending = await until(() => lastProgress(events)?.pendingReview ?? undefined);
    expect(pending).toMatchObject({ subject: 'query', query: 'SELECT 7 AS seven' });
    expect(lastProgress(events)?.mode).toBe('step');
    await workbench.invoke('runs/set-mode', { runId, mode: 'auto' });
    const done = await until(() => (lastProgress(events)?.status === 'answered' ? lastProgress(events) : undefined));
    expect(done.mode).toBe('auto');
    server.verify();
  });
});
