/**
 * [ext] Ranking a batch of a finished DeLLMa run by hand, through the workbench service (as
 * the ranking cell's "Rank this batch yourself" does) on the agriculture example, with the
 * real `openai` SDK against a scripted model that ranks pear's futures first. The re-fit makes
 * no model call; its fit is exactly a fresh Bradley–Terry fit of the run's recorded
 * comparisons with that batch's replaced by the analyst's; it is new cells after the run's
 * own (which stay), continues the run's hash-chained log (the report verifies and shows it),
 * survives reopening the workspace, and can be removed.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { EventName, EventPayload } from '../../../src-main/contract/api';
import { dellmaExpectedSchema, dellmaFitSchema, dellmaRankSchema, type DellmaRank } from '../../../src-main/contract/dellma';
import { loadAgriculture } from '../../../src-main/dellma-data/agriculture';
import { fitPairs } from '../../../src-main/engine/techniques/dellma/bradley-terry';
import { rankToPairs } from '../../../src-main/engine/techniques/dellma/ranking';
import { utilities } from '../../../src-main/engine/techniques/dellma/utility';
import { openWorkbench, type Workbench } from '../../../src-main/services/workbench';
import { repoRoot } from '../../support/fixtures';
import { useCleanups } from '../../support/lifecycle';
import { messageText, startScriptedOpenAiServer, type ReceivedChatRequest, type ScriptedTurn } from '../../support/scripted-openai';
import { useTempDirs } from '../../support/temp';
import { forecastAnswer, isForecast, rankingPreferring } from './scripted-dellma-model';

const tempDir = useTempDirs();
const onCleanup = useCleanups();

const question = 'Which fruit should I plant on my 10 acres in California next season to earn the most revenue per acre?\nOptions: apple; grape; pear\nUnknowns: climate condition';

function agricultureDatabase(directory: string): string {
  const { stats2021 } = loadAgriculture(join(repoRoot, 'fixtures', 'dellma', 'agriculture'));
  const path = join(directory, 'agriculture.sqlite');
  const database = new Database(path);
  database.exec('CREATE TABLE fruit_2021 (commodity TEXT, yield_per_acre REAL, price REAL)');
  const insert = database.prepare('INSERT INTO fruit_2021 VALUES (?, ?, ?)');
  for (const row of stats2021.rows) insert.run(row.commodity, row.yield.value, row.price.value);
  database.close();
  return path;
}

const prefersPear = (request: ReceivedChatRequest): ScriptedTurn => {
  const text = messageText(request.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });
  if (text.includes('Write one query that retrieves')) return { label: 'context query', content: '```sql\nSELECT commodity, yield_per_acre, price FROM fruit_2021\n```' };
  if (isForecast(request)) return { label: 'forecast', content: forecastAnswer(request) };
  const rank = rankingPreferring(request, 'pear');
  return { label: 'rank', content: JSON.stringify({ decision: rank[0], rank, explanation: 'Pear first.' }) };
};

const modelSettings = (baseUrl: string) => ({ baseUrl, model: 'm', temperature: 0, maxTokens: 400, requestTimeoutMs: 5000, maxRetries: 0, stream: false, toolMode: 'tools' as const });

async function until<T>(read: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The DeLLMa records of a run's cells, in notebook order, with each cell's provenance node. */
async function steps(workbench: Workbench, notebookId: string, runId: string, tool: string): Promise<{ node: string | undefined; input: unknown }[]> {
  const cells = (await workbench.invoke('notebooks/get', { id: notebookId })).cells.filter((cell) => cell.provenance.runId === runId);
  return cells.flatMap((cell) => ((cell.data as { tool?: unknown }).tool === tool ? [{ node: cell.provenance.node, input: (cell.data as { input?: unknown }).input }] : []));
}

const lineOf = (rank: DellmaRank, number: number): string => {
  const item = rank.items.find((entry) => entry.number === number);
  return `${number} | ${item?.action ?? '?'} | ${item?.state ?? '?'}`;
};

describe('ranking a batch of a finished DeLLMa run by hand [ext]', () => {
  it('re-fits from the recorded batches with the analyst’s ranking, exactly as a fresh fit, as new cells that persist and can be removed', async () => {
    const server = await startScriptedOpenAiServer(Array.from({ length: 6 }, () => prefersPear));
    const workspaceDir = tempDir();
    let workbench = openWorkbench({ workspaceDir, platform: { transport: 'websocket' } });
    onCleanup(() => server.close());
    const events: { event: EventName; payload: unknown }[] = [];
    workbench.subscribe((event, payload) => events.push({ event, payload }));
    const connection = await workbench.invoke('connections/add', { name: 'Agriculture 2021', target: { engine: 'sqlite', path: agricultureDatabase(tempDir()) } });
    const { id: notebookId } = await workbench.invoke('notebooks/create', { title: 'DeLLMa re-fit' });
    await workbench.invoke('model/save', { settings: modelSettings(server.baseUrl) });
    // 3 fruits × 8 futures = 24 scenarios in windows of 16 at stride 12: batches 1–16 and 13–24 (12 scenarios).
    const { runId } = await workbench.invoke('runs/start', { notebookId, connectionId: connection.id, question, technique: 'dellma', mode: 'auto', techniqueOptions: { variant: 'pairs', perAction: 8, batch: 16, overlap: 0.25 } });
    await until(() => {
      const progress = events.filter((entry) => entry.event === 'run-progress' && (entry.payload as EventPayload<'run-progress'>).runId === runId).at(-1)?.payload as EventPayload<'run-progress'> | undefined;
      return progress && progress.status !== 'running' ? progress : undefined;
    });
    const callsAfterRun = server.chatRequests().length;
    const ranks = (await steps(workbench, notebookId, runId, 'dellma.rank')).map((step) => dellmaRankSchema.parse(step.input));
    expect(ranks.map((rank) => rank.batch)).toEqual([1, 2]);
    const [first, second] = ranks as [DellmaRank, DellmaRank];
    const runFit = dellmaFitSchema.parse((await steps(workbench, notebookId, runId, 'dellma.fit'))[0]?.input);
    const runExpected = dellmaExpectedSchema.parse((await steps(workbench, notebookId, runId, 'dellma.expected'))[0]?.input);
    expect(runExpected.chosen).toBe('pear');

    // The analyst ranks batch 2 with every apple scenario first, then grape, then pear (the model's order within each).
    const fruitOrder = ['apple', 'grape', 'pear'];
    const analystOrder = fruitOrder.flatMap((fruit) => (second.order ?? []).filter((number) => second.items[number - 1]?.action === fruit));
    const { node } = await workbench.invoke('dellma/rank-batch', { runId, batch: 2, lines: analystOrder.map((number) => lineOf(second, number)) });
    expect(node).toBe('refit-1');
    expect(server.chatRequests().length).toBe(callsAfterRun);

    // The run's own cells stay; the re-fit is three more, marked with the batch.
    const fits = await steps(workbench, notebookId, runId, 'dellma.fit');
    expect(fits).toHaveLength(2);
    expect(dellmaFitSchema.parse(fits[0]?.input)).toEqual(runFit);
    const refitRank = dellmaRankSchema.parse((await steps(workbench, notebookId, runId, 'dellma.rank'))[2]?.input);
    const refitFit = dellmaFitSchema.parse(fits[1]?.input);
    const refitExpected = dellmaExpectedSchema.parse((await steps(workbench, notebookId, runId, 'dellma.expected'))[1]?.input);
    expect([refitRank.refit, refitFit.refit, refitExpected.refit]).toEqual([{ batch: 2 }, { batch: 2 }, { batch: 2 }]);
    expect(refitRank).toMatchObject({ batch: 2, rankedBy: 'analyst', order: analystOrder, modelOrder: second.order, comparisons: (second.items.length * (second.items.length - 1)) / 2 });
    expect(fits[1]?.node).toBe('refit-1');

    // Exactly a fresh fit: batch 1's pairs as the model ranked them, batch 2's as the analyst did.
    const positions = (rank: DellmaRank, order: readonly number[]): number[] => order.map((number) => rank.items[number - 1]?.position ?? -1);
    const pairs = [...rankToPairs(positions(first, first.order ?? [])), ...rankToPairs(positions(second, analystOrder))];
    const fresh = fitPairs(24, pairs, { alpha: runFit.alpha });
    const freshUtility = utilities(fresh.theta, runFit.temperature);
    expect(refitFit.comparisons).toBe(pairs.length);
    expect(refitFit.iterations).toBe(fresh.iterations);
    refitFit.items.forEach((item) => {
      expect(item.theta).toBeCloseTo(fresh.theta[item.position] ?? Number.NaN, 12);
      expect(item.utility).toBeCloseTo(freshUtility[item.position] ?? Number.NaN, 12);
    });
    const meanOf = (fruit: string): number => {
      const mine = refitFit.items.filter((item) => item.action === fruit);
      return mine.reduce((sum, item) => sum + (freshUtility[item.position] ?? 0), 0) / mine.length;
    };
    for (const row of refitExpected.rows) expect(row.expected).toBeCloseTo(meanOf(row.action), 12);
    const best = [...refitExpected.rows].sort((a, b) => (b.expected ?? 0) - (a.expected ?? 0))[0]?.action;
    expect(refitExpected.chosen).toBe(best);
    // The analyst's batch pulls apple up: its expected utility rises against the run's.
    expect(refitExpected.rows.find((row) => row.action === 'apple')?.expected ?? 0).toBeGreaterThan(runExpected.rows.find((row) => row.action === 'apple')?.expected ?? 0);

    // An order that is not the batch's numbers each once is refused with its reason.
    await expect(workbench.invoke('dellma/rank-batch', { runId, batch: 2, lines: analystOrder.slice(1).map((number) => lineOf(second, number)) })).rejects.toThrow(/missing scenario\(s\) \d+/);
    await expect(workbench.invoke('dellma/rank-batch', { runId, batch: 3, lines: ['1 | apple | x'] })).rejects.toThrow(/no batch 3/);

    // The log goes on after the run's end: the report verifies and shows the analyst's re-fit.
    const preview = await workbench.invoke('reports/preview', { notebookId, runId });
    expect(preview.html).toContain('Batch 2 ranked by hand after the run');
    expect(preview.html).toContain('Re-fit after the run with batch 2 ranked by the analyst (no model call)');

    // A run still going is ranked at its own review points, not re-fitted.
    const live = await workbench.invoke('runs/start', { notebookId, connectionId: connection.id, question, technique: 'dellma', mode: 'step' });
    await until(() => (events.some((entry) => entry.event === 'run-progress' && (entry.payload as EventPayload<'run-progress'>).runId === live.runId && (entry.payload as EventPayload<'run-progress'>).pendingReview !== null) ? true : undefined));
    await expect(workbench.invoke('dellma/rank-batch', { runId: live.runId, batch: 1, lines: ['1 | apple | x'] })).rejects.toThrow(/still going/);
    await workbench.invoke('runs/stop', { runId: live.runId });
    await until(() => (events.some((entry) => entry.event === 'run-progress' && (entry.payload as EventPayload<'run-progress'>).runId === live.runId && (entry.payload as EventPayload<'run-progress'>).status !== 'running') ? true : undefined));

    // It survives closing and reopening the workspace.
    workbench.close();
    workbench = openWorkbench({ workspaceDir, platform: { transport: 'websocket' } });
    onCleanup(() => workbench.close());
    expect((await steps(workbench, notebookId, runId, 'dellma.expected')).map((step) => step.node)).toEqual(['expected', 'refit-1']);

    // Removing the re-fit takes its cells away and leaves the run's; the log records the removal.
    const { removedCells } = await workbench.invoke('dellma/withdraw-refit', { runId, node: 'refit-1' });
    expect(removedCells).toHaveLength(4);
    expect((await steps(workbench, notebookId, runId, 'dellma.fit')).map((step) => step.node)).toEqual(['fit']);
    const after = await workbench.invoke('reports/preview', { notebookId, runId });
    expect(after.eventCount).toBe(preview.eventCount + 1);
    expect(after.html).toContain('The analyst removed the re-fit refit-1');
    expect(server.failures).toEqual([]);
  });
});
