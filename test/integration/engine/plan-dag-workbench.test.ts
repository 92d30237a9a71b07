import { describe, expect, it } from 'vitest';
import type { EventName, EventPayload } from '../../../src-main/contract/api';
import { openWorkbench, type Workbench } from '../../../src-main/services/workbench';
import { nodeOf, nodeTurn, plannerTurn, promptOf, queryTurn } from '../../support/plan-dag-script';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer } from '../../support/scripted-openai';
import type { ScriptStep } from '../../support/scripted-openai/script';
import { useCleanups } from '../../support/lifecycle';
import { useTempDirs } from '../../support/temp';
import { until } from '../../support/until';

/** Plan*RAG's analyst actions through the workspace service: the plan review point, and a node re-run as a new run [ext]. */
const tempDir = useTempDirs();
const onCleanup = useCleanups();

async function setup(script: ScriptStep[]) {
  const server: ScriptedOpenAiServer = await startScriptedOpenAiServer(script);
  const workbench: Workbench = openWorkbench({ workspaceDir: tempDir(), platform: { transport: 'websocket' } });
  onCleanup(() => server.close(), () => workbench.close());
  const events: { event: EventName; payload: unknown }[] = [];
  workbench.subscribe((event, payload) => events.push({ event, payload }));
  const locating = (await workbench.invoke('connections/list', {})).find((connection) => connection.name.startsWith('DQA Locating'))!;
  const notebook = await workbench.invoke('notebooks/create', { title: 'Plan*RAG' });
  await workbench.invoke('model/save', { settings: { baseUrl: server.baseUrl, model: 'm', temperature: 0, maxTokens: 200, requestTimeoutMs: 5000, maxRetries: 0, stream: false, toolMode: 'tools' } });
  return { server, workbench, events, locating, notebook };
}

const progressOf = (events: { event: EventName; payload: unknown }[], runId: string) =>
  events.filter((entry) => entry.event === 'run-progress' && (entry.payload as EventPayload<'run-progress'>).runId === runId).at(-1)?.payload as EventPayload<'run-progress'> | undefined;

const plan = {
  nodes: [
    { id: 'Q1.1', question: 'Which trade nodes have a flow into baltic_sea?' },
    { id: 'Q1.2', question: 'What is the local value of krakow?' },
    { id: 'Q2.1', question: 'Of <A1.1>, where should SWE place its merchant, given A1.2?', parents: ['Q1.1', 'Q1.2'], compute: true },
  ],
  final: 'Q2.1',
};

describe('Plan*RAG analyst actions in the workspace', () => {
  it('waits at the plan in step mode; a node re-run while paused stops the run there and starts a new one from its answers', async () => {
    const { workbench, server, events, locating, notebook } = await setup([
      plannerTurn(plan),
      queryTurn('Q1.1', "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source"),
      nodeTurn('Q1.1', 'answer', { answer: ['novgorod'] }),
      // The first run pauses at this query's review, and the analyst re-runs Q1.1 with a pinned answer.
      queryTurn('Q1.2', "SELECT local_value FROM trade_node WHERE trade_node = 'krakow'"),
      // The re-run: Q1.1 is pinned (no call); Q1.2 had not answered, so it runs; the join decides.
      queryTurn('Q1.2', "SELECT local_value FROM trade_node WHERE trade_node = 'krakow'"),
      nodeTurn('Q1.2', 'answer', { answer: 4.777 }),
      nodeTurn('Q2.1', 'decide', { decision: 'krakow', rationale: 'r' }, { expect: (request) => (promptOf(request).includes('Of krakow, novgorod, where') && promptOf(request).includes('given 4.777?') ? undefined : 'the join reads the pin and Q1.2') }),
    ]);
    const { runId } = await workbench.invoke('runs/start', { notebookId: notebook.id, connectionId: locating.id, question: 'Where should SWE place its merchant?', technique: 'plan-dag', mode: 'step' });
    expect(await until(() => progressOf(events, runId)?.pendingReview ?? undefined)).toMatchObject({ subject: 'plan', problem: null });
    await workbench.invoke('runs/review', { runId, decision: { action: 'approve' } });
    expect(await until(() => progressOf(events, runId)?.pendingReview ?? undefined)).toMatchObject({ subject: 'query', node: 'Q1.1', question: 'Which trade nodes have a flow into baltic_sea?' });
    await workbench.invoke('runs/review', { runId, decision: { action: 'approve' } });
    expect(await until(() => (progressOf(events, runId)?.pendingReview?.node === 'Q1.2' ? progressOf(events, runId)?.pendingReview : undefined))).toMatchObject({ subject: 'query' });

    await expect(workbench.invoke('runs/rerun-node', { runId, node: 'Q7.1' })).rejects.toThrow(`Run ${runId} has no node Q7.1`);
    const rerun = await workbench.invoke('runs/rerun-node', { runId, node: 'Q1.1', pinned: 'krakow, novgorod' });
    expect(rerun.runId).not.toBe(runId);
    // Same request as the first run, so step mode again: Q1.2's query waits for review.
    await until(() => progressOf(events, rerun.runId)?.pendingReview ?? undefined);
    await workbench.invoke('runs/review', { runId: rerun.runId, decision: { action: 'approve' } });
    await until(() => (progressOf(events, rerun.runId)?.status === 'answered' ? true : undefined));
    server.verify();
    expect(server.chatRequests().map(nodeOf)).toEqual([null, 'Q1.1', 'Q1.1', 'Q1.2', 'Q1.2', 'Q1.2', 'Q2.1']);
    const runs = await workbench.invoke('runs/list', { notebookId: notebook.id });
    expect(runs.find((run) => run.id === runId)).toMatchObject({ status: 'stopped' });
    expect(runs.find((run) => run.id === rerun.runId)).toMatchObject({ technique: 'plan-dag', mode: 'step', status: 'answered', decision: 'krakow', question: 'Where should SWE place its merchant?' });
    const cells = (await workbench.invoke('notebooks/get', { id: notebook.id })).cells.filter((cell) => cell.provenance.runId === rerun.runId);
    // Pinning changes the plan the re-run starts from, so it is recorded as the analyst's edit of the plan, with the re-run's note.
    const review = cells.find((cell) => cell.kind === 'note');
    expect(review?.provenance.node).toBe('Q1.1');
    expect(review?.data).toEqual({ review: 'edit', subject: 'plan' });
    expect(review?.source.startsWith("**The analyst edited the model's plan graph.**")).toBe(true);
    expect(review?.source.endsWith(`**Analyst note:** [ext] re-ran Q1.1 of run ${runId} with its answer pinned to "krakow, novgorod"; stale descendants run again: Q2.1`)).toBe(true);
  });
});
