import { describe, expect, it } from 'vitest';
import type { EventName, EventPayload } from '../../../src-main/contract/api';
import { reviewKeyOf } from '../../../src-main/contract/run';
import { openWorkbench } from '../../../src-main/services/workbench';
import { startScriptedOpenAiServer } from '../../support/scripted-openai';
import type { ScriptStep, WireChatRequest } from '../../support/scripted-openai/script';
import { useCleanups } from '../../support/lifecycle';
import { useTempDirs } from '../../support/temp';
import { until } from '../../support/until';

/**
 * A run's pending reviews are kept by key (step and node), so two that wait at once — two
 * parallel Pearl steps reaching their queries after the analyst paused — are both answered,
 * each by its key, and neither is lost (the single review slot used to keep only the last).
 */
const tempDir = useTempDirs();
const onCleanup = useCleanups();

type Progress = EventPayload<'run-progress'>;

/** The seed library's actions: two database steps that need nothing from each other, then one that reads both. */
const program = [
  'New actions:',
  '- None',
  '',
  '1. out1 = NEIGHBORS(DB, "baltic_sea", "source", "in") : the nodes that feed the home node',
  '2. out2 = LOOKUP(DB, "SWE", "base_trading_power") : what SWE brings',
  '3. out3 = ARGMAX(out1, out2) : the node for the merchant',
].join('\n');

const textOf = (chat: WireChatRequest): string => JSON.stringify(chat.messages);
/** A step's first call (no tool result yet) or its call after the query's rows came back. */
const stepCall = (id: string, answered: boolean) => (chat: WireChatRequest) => textOf(chat).includes(`its result becomes ${id}`) && chat.messages.some((message) => message.role === 'tool') === answered;

describe('pending reviews kept by key', () => {
  it('two parallel Pearl database steps paused at once wait side by side; each is answered by its key and the run decides', async () => {
    let release = (): void => undefined;
    const paused = new Promise<void>((resolve) => (release = resolve));
    const script: ScriptStep[] = [
      { expectTools: ['program'], toolCalls: [{ name: 'program', arguments: { program } }] },
      // Both steps' first calls are held until the analyst has paused the run, so both reach their review in step-through.
      { when: stepCall('out1', false), holdUntil: paused, toolCalls: [{ name: 'query', arguments: { query: "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source" } }] },
      { when: stepCall('out2', false), holdUntil: paused, toolCalls: [{ name: 'query', arguments: { query: "SELECT base_trading_power FROM node_country WHERE country_name = 'SWE'" } }] },
      { when: stepCall('out1', true), toolCalls: [{ name: 'output', arguments: { output: 'krakow, novgorod' } }] },
      { when: stepCall('out2', true), toolCalls: [{ name: 'output', arguments: { output: '7.98' } }] },
      { when: stepCall('out3', false), toolCalls: [{ name: 'output', arguments: { output: 'krakow' } }] },
    ];
    const server = await startScriptedOpenAiServer(script);
    const workbench = openWorkbench({ workspaceDir: tempDir(), platform: { transport: 'websocket' } });
    onCleanup(() => server.close(), () => workbench.close());
    const events: { event: EventName; payload: unknown }[] = [];
    workbench.subscribe((event, payload) => events.push({ event, payload }));
    const progress = (): Progress | undefined =>
      events.filter((entry) => entry.event === 'run-progress').map((entry) => entry.payload as Progress).filter((entry) => entry.runId === runId).at(-1);
    const locating = (await workbench.invoke('connections/list', {})).find((connection) => connection.name.startsWith('DQA Locating'))!;
    const notebook = await workbench.invoke('notebooks/create', { title: 'Pending reviews' });
    await workbench.invoke('model/save', { settings: { baseUrl: server.baseUrl, model: 'm', temperature: 0, maxTokens: 100, requestTimeoutMs: 10_000, maxRetries: 0, stream: true, toolMode: 'tools' } });

    const { runId } = await workbench.invoke('runs/start', {
      notebookId: notebook.id,
      connectionId: locating.id,
      question: 'Where should SWE place its merchant on baltic_sea?',
      technique: 'pearl',
      mode: 'auto',
      simulator: { known: { country: 'SWE', home: 'baltic_sea' } },
    });
    // The planner answered and both independent steps are asking the model at once.
    await until(() => (server.chatRequests().length >= 3 ? true : undefined));
    await workbench.invoke('runs/set-mode', { runId, mode: 'step' });
    release();

    const waiting = await until(() => ((progress()?.pendingReviews?.length ?? 0) === 2 ? progress()?.pendingReviews : undefined));
    expect(waiting.map((review) => review.node).sort()).toEqual(['out1', 'out2']);
    // The dock shows the oldest; its key names the step and the node.
    expect(progress()?.pendingReview).toEqual(waiting[0]);
    const keys = waiting.map(reviewKeyOf);
    expect(new Set(keys).size).toBe(2);
    expect(keys.every((key) => /^\d+:out[12]$/.test(key))).toBe(true);

    // Answer the newer one first, by its key: the older one keeps waiting, untouched.
    await workbench.invoke('runs/review', { runId, key: keys[1]!, decision: { action: 'approve' } });
    const left = await until(() => (progress()?.pendingReviews?.length === 1 ? progress()?.pendingReviews : undefined));
    expect(left).toEqual([waiting[0]]);
    await expect(workbench.invoke('runs/review', { runId, key: keys[1]!, decision: { action: 'approve' } })).rejects.toThrow(`This run is not waiting for review ${keys[1]} (waiting: ${keys[0]})`);
    await workbench.invoke('runs/review', { runId, key: keys[0]!, decision: { action: 'approve' } });

    const end = await until(() => (progress()?.status !== 'running' ? progress() : undefined));
    expect(end).toMatchObject({ status: 'answered', pendingReview: null, pendingReviews: [] });
    server.verify();
    const cells = (await workbench.invoke('notebooks/get', { id: notebook.id })).cells.filter((cell) => cell.provenance.runId === runId);
    // Both queries ran, each at its own node, and the run decided.
    expect(cells.filter((cell) => cell.kind === 'query').map((cell) => cell.provenance.node).sort()).toEqual(['out1', 'out2']);
    expect(cells.find((cell) => cell.kind === 'decision')?.data).toMatchObject({ decision: 'krakow' });
  });
});
