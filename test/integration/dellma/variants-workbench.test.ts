/**
 * A DeLLMa run's variant and sizes chosen when it starts, through the workbench service (as the
 * run composer starts it) on the paper's agriculture example (the USDA 2021 figures in SQLite),
 * with the real `openai` SDK against a scripted model that ranks pear's futures first:
 * Top-1 and Naive make the calls and give the comparisons SPECS §3 says, the sampling cell
 * shows the variant's plan, and bad settings are refused with a specific message before
 * anything runs. `dellma/estimate` gives the same ranking calls before the run.
 */
import { describe, expect, it } from 'vitest';
import type { EventName, EventPayload } from '../../../src-main/contract/api';
import { dellmaFitSchema, dellmaRankSchema, dellmaSamplingSchema } from '../../../src-main/contract/dellma';
import { openWorkbench, type Workbench } from '../../../src-main/services/workbench';
import { useCleanups } from '../../support/lifecycle';
import { messageText, startScriptedOpenAiServer, type ReceivedChatRequest, type ScriptedOpenAiServer, type ScriptedTurn } from '../../support/scripted-openai';
import { agricultureDatabase } from '../../support/agriculture-database';
import { useTempDirs } from '../../support/temp';
import { until } from '../../support/until';
import { forecastAnswer, isForecast, rankingPreferring, scenariosOf } from './scripted-dellma-model';

const tempDir = useTempDirs();
const onCleanup = useCleanups();

const question = 'Which fruit should I plant on my 10 acres in California next season to earn the most revenue per acre?\nOptions: apple; grape; pear\nUnknowns: climate condition';


const userText = (request: ReceivedChatRequest): string => messageText(request.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });

const prefersPear = (request: ReceivedChatRequest): ScriptedTurn => {
  if (userText(request).includes('Write one query that retrieves')) return { label: 'context query', content: '```sql\nSELECT commodity, yield_per_acre, price FROM fruit_2021\n```' };
  if (isForecast(request)) return { label: 'forecast', content: forecastAnswer(request) };
  // The baselines show no scenarios: they ask for the option itself.
  if (scenariosOf(request).length === 0) return { label: 'baseline answer', content: JSON.stringify({ decision: 'pear' }) };
  const rank = rankingPreferring(request, 'pear');
  return { label: 'rank', content: JSON.stringify({ decision: rank[0], rank, explanation: 'Pear first.' }) };
};

async function setup(): Promise<{ workbench: Workbench; server: ScriptedOpenAiServer; events: { event: EventName; payload: unknown }[]; connectionId: string; notebookId: string }> {
  const server = await startScriptedOpenAiServer(Array.from({ length: 12 }, () => prefersPear));
  const workbench = openWorkbench({ workspaceDir: tempDir(), platform: { transport: 'websocket' } });
  onCleanup(() => server.close(), () => workbench.close());
  const events: { event: EventName; payload: unknown }[] = [];
  workbench.subscribe((event, payload) => events.push({ event, payload }));
  const connection = await workbench.invoke('connections/add', { name: 'Agriculture 2021', target: { engine: 'sqlite', path: agricultureDatabase(tempDir()) } });
  const notebook = await workbench.invoke('notebooks/create', { title: 'DeLLMa variants' });
  await workbench.invoke('model/save', { settings: { baseUrl: server.baseUrl, model: 'm', temperature: 0, maxTokens: 400, requestTimeoutMs: 5000, maxRetries: 0, stream: false, toolMode: 'tools' } });
  return { workbench, server, events, connectionId: connection.id, notebookId: notebook.id };
}

async function finished(events: { event: EventName; payload: unknown }[], runId: string): Promise<EventPayload<'run-progress'>> {
  return until(() => {
    const progress = events.filter((entry) => entry.event === 'run-progress' && (entry.payload as EventPayload<'run-progress'>).runId === runId).at(-1)?.payload as EventPayload<'run-progress'> | undefined;
    return progress && progress.status !== 'running' ? progress : undefined;
  });
}

async function stepInputs(workbench: Workbench, notebookId: string, runId: string, tool: string): Promise<unknown[]> {
  const cells = (await workbench.invoke('notebooks/get', { id: notebookId })).cells.filter((cell) => cell.provenance.runId === runId);
  return cells.flatMap((cell) => ((cell.data as { tool?: unknown }).tool === tool ? [(cell.data as { input?: unknown }).input] : []));
}

describe('choosing the DeLLMa variant and sizes for a run', () => {
  it('Top-1: one forecast and one ranking call per window, each batch the winner over the rest', async () => {
    const { workbench, server, events, connectionId, notebookId } = await setup();
    const settings = { variant: 'top1' as const, perAction: 8, batch: 8, overlap: 0.25 };
    const estimate = await workbench.invoke('dellma/estimate', { question, settings });
    const { runId } = await workbench.invoke('runs/start', { notebookId, connectionId, question, technique: 'dellma', mode: 'auto', techniqueOptions: settings });
    expect(await finished(events, runId)).toMatchObject({ status: 'answered' });
    expect(server.failures).toEqual([]);
    // 3 fruits × 8 futures = 24 scenarios; stride ⌊8·0.75⌋ = 6: windows at 0, 6, 12, 18 (the last 6 long).
    // Calls: the context query, the forecast, 4 rankings [SPECS §3: 1 forecast + the number of windows].
    expect(server.chatRequests()).toHaveLength(6);
    expect(estimate).toMatchObject({ actions: 3, forecastCalls: 1, rankingCalls: 4, calls: 6 });
    const sampling = dellmaSamplingSchema.parse((await stepInputs(workbench, notebookId, runId, 'dellma.sampling'))[0]);
    expect(sampling).toMatchObject({ variant: 'top1', perAction: 8, batch: 8, overlap: 0.25, states: 8, items: 24, windows: [{ start: 0, size: 8 }, { start: 6, size: 8 }, { start: 12, size: 8 }, { start: 18, size: 6 }] });
    // The composer's estimate is the sampling cell's: the same ranking calls.
    expect(sampling.cost.calls).toBe(estimate.rankingCalls);
    const ranks = (await stepInputs(workbench, notebookId, runId, 'dellma.rank')).map((input) => dellmaRankSchema.parse(input));
    // Top-1: the batch's best over each of the others (b − 1 comparisons), not every ordered pair.
    expect(ranks.map((rank) => rank.comparisons)).toEqual([7, 7, 7, 5]);
    const fit = dellmaFitSchema.parse((await stepInputs(workbench, notebookId, runId, 'dellma.fit'))[0]);
    // The fit takes one choice datum per batch (winner, {losers}) [SPECS §3: fitted as top-1 choice data], with Top-1's α.
    expect(fit).toMatchObject({ kind: 'top1', comparisons: 4, alpha: 1e-3 });
    const runs = await workbench.invoke('runs/list', { notebookId });
    expect(runs.find((run) => run.id === runId)).toMatchObject({ status: 'answered', decision: 'pear' });
  });

  it('Naive: its own futures with random options, all ranked in one call, every ordered pair compared', async () => {
    const { workbench, server, events, connectionId, notebookId } = await setup();
    const settings = { variant: 'naive' as const, naiveSamples: 12 };
    const { runId } = await workbench.invoke('runs/start', { notebookId, connectionId, question, technique: 'dellma', mode: 'auto', techniqueOptions: settings });
    const progress = await finished(events, runId);
    expect(server.failures).toEqual([]);
    // The context query, the forecast and one ranking call [SPECS §3: Naive = 1 ranking call].
    expect(server.chatRequests()).toHaveLength(3);
    expect(await workbench.invoke('dellma/estimate', { question, settings })).toMatchObject({ forecastCalls: 1, rankingCalls: 1, calls: 3 });
    const sampling = dellmaSamplingSchema.parse((await stepInputs(workbench, notebookId, runId, 'dellma.sampling'))[0]);
    expect(sampling).toMatchObject({ variant: 'naive', states: 12, items: 12, windows: [{ start: 0, size: 12 }] });
    const ranks = (await stepInputs(workbench, notebookId, runId, 'dellma.rank')).map((input) => dellmaRankSchema.parse(input));
    expect(ranks.map((rank) => [rank.items.length, rank.comparisons])).toEqual([[12, 66]]);
    expect(dellmaFitSchema.parse((await stepInputs(workbench, notebookId, runId, 'dellma.fit'))[0])).toMatchObject({ kind: 'pairs', comparisons: 66 });
    // Pear wins when one of its scenarios was drawn at all; the run answers either way.
    expect(progress.status).toBe('answered');
  });

  it('self-consistency: the context query and K answers at the paper temperature, the majority decides, no sampling', async () => {
    const { workbench, server, events, connectionId, notebookId } = await setup();
    const settings = { variant: 'sc' as const, selfConsistency: 3 };
    const { runId } = await workbench.invoke('runs/start', { notebookId, connectionId, question, technique: 'dellma', mode: 'auto', techniqueOptions: settings });
    expect(await finished(events, runId)).toMatchObject({ status: 'answered' });
    expect(server.failures).toEqual([]);
    const requests = server.chatRequests();
    expect(requests).toHaveLength(4);
    expect(requests.slice(1).map((request) => request.chat.temperature)).toEqual([0.5, 0.5, 0.5]);
    expect(await workbench.invoke('dellma/estimate', { question, settings })).toMatchObject({ forecastCalls: 0, rankingCalls: 0, calls: 4 });
    expect(await stepInputs(workbench, notebookId, runId, 'dellma.sampling')).toEqual([]);
    expect((await workbench.invoke('runs/list', { notebookId })).find((run) => run.id === runId)).toMatchObject({ decision: 'pear' });
  });

  it('estimates before the run from |A|, s, b, q, and again when a size changes', async () => {
    const { workbench, server } = await setup();
    const estimate = (settings: object, asked = question) => workbench.invoke('dellma/estimate', { question: asked, settings });
    // The defaults: 3 × 16 = 48 scenarios, windows of 32 at stride 24 → 2 ranking calls (+ forecast + context query).
    const defaults = await estimate({});
    expect(defaults).toMatchObject({ actions: 3, assumedActions: 3, forecastCalls: 1, rankingCalls: 2, otherCalls: 1, calls: 4 });
    // s = 64 (the paper's): 192 scenarios → windows at 0, 24, …, 168 → 8 ranking calls, and more tokens.
    const paper = await estimate({ perAction: 64 });
    expect(paper).toMatchObject({ rankingCalls: 8, calls: 10 });
    expect(paper.promptTokens).toBeGreaterThan(defaults.promptTokens);
    // More overlap, more windows: q = 0.75 gives stride 8 → windows at 0, 8, 16 → 3.
    expect(await estimate({ overlap: 0.75 })).toMatchObject({ rankingCalls: 3 });
    // No options listed: the run will find them (a candidates query), so up to 7 are assumed.
    expect(await estimate({}, 'Which fruit should I plant?')).toMatchObject({ actions: null, assumedActions: 7, otherCalls: 2 });
    await expect(estimate({ batch: 1 })).rejects.toThrow('the minibatch size must be at least 2');
    expect(server.chatRequests()).toHaveLength(0);
  });

  it('refuses bad settings with a specific message, and settings for another technique', async () => {
    const { workbench, server, connectionId, notebookId } = await setup();
    const start = (dellma: unknown, technique = 'dellma') => workbench.invoke('runs/start', { notebookId, connectionId, question, technique, mode: 'auto', techniqueOptions: dellma } as never);
    await expect(start({ variant: 'pairs', batch: 8, overlap: 0.9 })).rejects.toThrow('stride');
    await expect(start({ perAction: 2.5 })).rejects.toThrow('the samples per option must be a whole number');
    await expect(start({ variant: 'best' })).rejects.toThrow();
    // An unknown field is named with the technique; options for a technique that takes none are refused.
    await expect(start({ perAction: 8, extra: 1 })).rejects.toThrow('DeLLMa (dellma) options: extra: not an option it takes');
    await expect(start({ variant: 'top1' }, 'planrag')).rejects.toThrow('PlanRAG (planrag) takes no options, got variant');
    expect(server.chatRequests()).toHaveLength(0);
    expect(await workbench.invoke('runs/list', { notebookId })).toEqual([]);
  });
});
