import { describe, expect, it } from 'vitest';
import type { EventName, EventPayload } from '../../../src-main/contract/api';
import { openWorkbench, type Workbench } from '../../../src-main/services/workbench';
import { nodeOf, nodeTurn, plannerTurn, promptOf, queryTurn } from '../../support/plan-dag-script';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer } from '../../support/scripted-openai';
import type { ScriptStep } from '../../support/scripted-openai/script';
import { useCleanups } from '../../support/lifecycle';
import { useTempDirs } from '../../support/temp';

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

async function until<T>(read: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
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
  it('waits at the plan in step mode, then re-runs one node of the finished run as a new run with the same request', async () => {
    const { workbench, server, events, locating, notebook } = await setup([
      plannerTurn(plan),
      queryTurn('Q1.1', "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source"),
      queryTurn('Q1.2', "SELECT local_value FROM trade_node WHERE trade_node = 'krakow'"),
      nodeTurn('Q1.1', 'answer', { answer: ['krakow', 'novgorod'] }),
      nodeTurn('Q1.2', 'answer', { answer: 'local value MARK-KEPT' }),
      nodeTurn('Q2.1', 'decide', { decision: 'novgorod', rationale: 'r' }),
      // The re-run: Q1.2 pinned by the analyst, so only the join is asked again.
      nodeTurn('Q2.1', 'decide', { decision: 'krakow', rationale: 'r' }, { expect: (request) => (promptOf(request).includes('given 4.777?') && promptOf(request).includes('Of krakow, novgorod') ? undefined : 'the join reads the pin and the kept Q1.1') }),
    ]);
    const { runId } = await workbench.invoke('runs/start', { notebookId: notebook.id, connectionId: locating.id, question: 'Where should SWE place its merchant?', technique: 'plan-dag', mode: 'step' });
    const review = await until(() => progressOf(events, runId)?.pendingReview ?? undefined);
    expect(review).toMatchObject({ subject: 'plan', problem: null });
    // A node cannot be re-run while its run goes on.
    await expect(workbench.invoke('runs/rerun-node', { runId, node: 'Q1.2' })).rejects.toThrow('This run is still going; re-run a node once it has ended');
    await workbench.invoke('runs/review', { runId, decision: { action: 'approve' } });
    for (let reviews = 0; reviews < 2; reviews++) {
      await until(() => progressOf(events, runId)?.pendingReview ?? undefined);
      await workbench.invoke('runs/review', { runId, decision: { action: 'approve' } });
    }
    await until(() => (progressOf(events, runId)?.status === 'answered' ? true : undefined));

    await expect(workbench.invoke('runs/rerun-node', { runId, node: 'Q7.1' })).rejects.toThrow(`Run ${runId} has no node Q7.1`);
    const rerun = await workbench.invoke('runs/rerun-node', { runId, node: 'Q1.2', pinned: '4.777' });
    expect(rerun.runId).not.toBe(runId);
    // Same request as the first run, so step mode again: the join's call needs no query review.
    await until(() => (progressOf(events, rerun.runId)?.status === 'answered' ? true : undefined));
    server.verify();
    expect(server.chatRequests().map(nodeOf).slice(6)).toEqual(['Q2.1']);
    const runs = await workbench.invoke('runs/list', { notebookId: notebook.id });
    expect(runs.find((run) => run.id === rerun.runId)).toMatchObject({ technique: 'plan-dag', mode: 'step', decision: 'krakow', question: 'Where should SWE place its merchant?' });
    const cells = (await workbench.invoke('notebooks/get', { id: notebook.id })).cells.filter((cell) => cell.provenance.runId === rerun.runId);
    expect(cells.find((cell) => cell.kind === 'note')?.source).toBe(`**Analyst note (plan):** [ext] re-ran Q1.2 of run ${runId} with its answer pinned to "4.777"; stale descendants run again: Q2.1`);
  });
});
