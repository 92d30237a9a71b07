/**
 * The model's DeLLMa forecast kept across app runs, through the workbench service with the
 * real `openai` SDK against the scripted server: a second run on the same context reuses the
 * first run's forecast (one model call fewer, the same beliefs, the cell says from which run),
 * and a changed context (new rows behind the context query) asks the model again.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { EventName, EventPayload } from '../../../src-main/contract/api';
import { dellmaForecastSchema, type DellmaForecast } from '../../../src-main/contract/dellma';
import { openWorkbench, type Workbench } from '../../../src-main/services/workbench';
import { useCleanups } from '../../support/lifecycle';
import { messageText, startScriptedOpenAiServer, type ReceivedChatRequest, type ScriptedTurn } from '../../support/scripted-openai';
import { useTempDirs } from '../../support/temp';
import { until } from '../../support/until';
import { forecastAnswer, isForecast, rankingPreferring } from './scripted-dellma-model';

const tempDir = useTempDirs();
const onCleanup = useCleanups();

const question = 'Which fruit should I plant next season to earn the most revenue per acre?\nOptions: apple; grape; pear\nUnknowns: climate condition';
const settings = { variant: 'pairs' as const, perAction: 4, batch: 12, overlap: 0.25 };

const userText = (request: ReceivedChatRequest): string => messageText(request.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });
const prefersPear = (request: ReceivedChatRequest): ScriptedTurn => {
  if (userText(request).includes('Write one query that retrieves')) return { label: 'context query', content: '```sql\nSELECT commodity, price FROM fruit\n```' };
  if (isForecast(request)) return { label: 'forecast', content: forecastAnswer(request) };
  const rank = rankingPreferring(request, 'pear');
  return { label: 'rank', content: JSON.stringify({ decision: rank[0], rank, explanation: 'Pear first.' }) };
};

describe('the DeLLMa forecast cached in the workspace', () => {
  it('reuses the model forecast for the same context and asks again when the context changes', async () => {
    const server = await startScriptedOpenAiServer(Array.from({ length: 12 }, () => prefersPear));
    const workspaceDir = tempDir();
    const workbench: Workbench = openWorkbench({ workspaceDir, platform: { transport: 'websocket' } });
    onCleanup(() => server.close(), () => workbench.close());
    const events: { event: EventName; payload: unknown }[] = [];
    workbench.subscribe((event, payload) => events.push({ event, payload }));
    const databasePath = join(tempDir(), 'fruit.sqlite');
    const database = new Database(databasePath);
    database.exec("CREATE TABLE fruit (commodity TEXT, price REAL); INSERT INTO fruit VALUES ('apple', 1.2), ('grape', 2.5), ('pear', 0.9)");
    database.close();
    const connection = await workbench.invoke('connections/add', { name: 'Fruit', target: { engine: 'sqlite', path: databasePath } });
    const notebook = await workbench.invoke('notebooks/create', { title: 'Forecast cache' });
    await workbench.invoke('model/save', { settings: { baseUrl: server.baseUrl, model: 'm', temperature: 0, maxTokens: 400, requestTimeoutMs: 5000, maxRetries: 0, stream: false, toolMode: 'tools' } });

    const run = async (): Promise<{ runId: string; calls: number; forecasts: number; forecast: DellmaForecast; output: string }> => {
      const before = server.chatRequests();
      const { runId } = await workbench.invoke('runs/start', { notebookId: notebook.id, connectionId: connection.id, question, technique: 'dellma', mode: 'auto', techniqueOptions: settings });
      const progress = await until(() => {
        const last = events.filter((entry) => entry.event === 'run-progress' && (entry.payload as EventPayload<'run-progress'>).runId === runId).at(-1)?.payload as EventPayload<'run-progress'> | undefined;
        return last && last.status !== 'running' ? last : undefined;
      });
      expect(progress.status).toBe('answered');
      const made = server.chatRequests().slice(before.length);
      const cells = (await workbench.invoke('notebooks/get', { id: notebook.id })).cells.filter((cell) => cell.provenance.runId === runId && (cell.data as { tool?: unknown }).tool === 'dellma.forecast');
      expect(cells).toHaveLength(1);
      const data = cells[0]?.data as { input?: unknown };
      return { runId, calls: made.length, forecasts: made.filter(isForecast).length, forecast: dellmaForecastSchema.parse(data.input), output: cells[0]?.source ?? '' };
    };

    const first = await run();
    expect(first.forecasts).toBe(1);
    expect(first.forecast.reused).toBeUndefined();
    expect(existsSync(join(workspaceDir, 'dellma-forecasts.json'))).toBe(true);

    const second = await run();
    // The same context: no forecast call, the first run's forecast, said to be reused from it.
    expect(second.forecasts).toBe(0);
    expect(second.calls).toBe(first.calls - 1);
    expect(second.forecast.factors).toEqual(first.forecast.factors);
    expect(second.forecast.reused).toMatchObject({ runId: first.runId });
    expect(second.output).toContain(`reused, no model call: made by ${first.runId}`);

    // New rows behind the context query change the context: the model is asked again.
    const writer = new Database(databasePath);
    writer.exec("INSERT INTO fruit VALUES ('plum', 3.1)");
    writer.close();
    const third = await run();
    expect(third.forecasts).toBe(1);
    expect(third.forecast.reused).toBeUndefined();
    expect(server.failures).toEqual([]);
  });
});
