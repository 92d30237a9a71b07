/**
 * Attached documents reach DeLLMa, through the workbench service with the real `openai` SDK
 * against the scripted server: the agriculture example (database of the 2021 USDA figures,
 * the USDA report attached, the question for DeLLMa) run with a model that always prefers
 * avocado's futures makes avocado the decision; the forecast prompt holds the report's text,
 * cut with a visible note; the context and forecast cells and the run-start record name the
 * document. A technique that reads no documents is not given them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { EventName, EventPayload } from '../../../src-main/contract/api';
import { dellmaContextSchema, dellmaExpectedSchema, dellmaForecastSchema } from '../../../src-main/contract/dellma';
import { documentLimits } from '../../../src-main/contract/documents';
import { openWorkbench, type Workbench } from '../../../src-main/services/workbench';
import { repoRoot } from '../../support/fixtures';
import { useCleanups } from '../../support/lifecycle';
import { messageText, startScriptedOpenAiServer, type ReceivedChatRequest, type ScriptedTurn } from '../../support/scripted-openai';
import { useTempDirs } from '../../support/temp';
import { forecastAnswer, isForecast, rankingPreferring } from './scripted-dellma-model';

const tempDir = useTempDirs();
const onCleanup = useCleanups();
const report = readFileSync(join(repoRoot, 'fixtures', 'dellma', 'agriculture', 'reports', 'fruit-sept-2021.txt'), 'utf8');

const firstUser = (request: ReceivedChatRequest): string => messageText(request.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });
const prefersAvocado = (request: ReceivedChatRequest): ScriptedTurn => {
  if (firstUser(request).includes('Write one query that retrieves')) return { label: 'context query', content: "```sql\nSELECT commodity, yield_per_acre, yield_unit, price, price_unit FROM ca_crop_stats_2021 WHERE commodity IN ('apple', 'avocado', 'pear')\n```" };
  if (isForecast(request)) return { label: 'forecast', content: forecastAnswer(request) };
  const rank = rankingPreferring(request, 'avocado');
  return { label: 'rank', content: JSON.stringify({ decision: rank[0], rank, explanation: 'Avocado futures first.' }) };
};

async function until<T>(read: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function runStartOf(workspaceDir: string, runId: string): { documents?: { name: string; chars: number; sha256: string }[] } {
  const database = new Database(join(workspaceDir, 'workspace.sqlite'), { readonly: true });
  try {
    const row = database.prepare('SELECT event FROM run_events WHERE run_id = ? ORDER BY seq LIMIT 1').get(runId) as { event: string };
    return JSON.parse(row.event) as { documents?: { name: string; chars: number; sha256: string }[] };
  } finally {
    database.close();
  }
}

describe('documents in DeLLMa runs, and the agriculture example', () => {
  it('opens the example and decides with the report in the forecast’s context', async () => {
    const server = await startScriptedOpenAiServer(Array.from({ length: 12 }, () => prefersAvocado));
    const workspaceDir = tempDir();
    const workbench: Workbench = openWorkbench({ workspaceDir, platform: { transport: 'websocket' }, installDemo: false });
    onCleanup(() => server.close(), () => workbench.close());
    const events: { event: EventName; payload: unknown }[] = [];
    workbench.subscribe((event, payload) => events.push({ event, payload }));
    await workbench.invoke('model/save', { settings: { baseUrl: server.baseUrl, model: 'm', temperature: 0, maxTokens: 400, requestTimeoutMs: 5000, maxRetries: 0, stream: false, toolMode: 'tools' } });

    const opened = await workbench.invoke('examples/dellma-agriculture', {});
    expect(opened.imported).toMatchObject({ table: 'ca_crop_stats_2021', rows: 40, malformed: [] });
    const connections = await workbench.invoke('connections/list', {});
    expect(connections.find((connection) => connection.id === opened.connectionId)).toMatchObject({ name: 'DeLLMa agriculture: California crops 2021', target: { engine: 'sqlite', path: join(workspaceDir, 'examples', 'dellma-agriculture-2021.sqlite') } });
    const notebook = await workbench.invoke('notebooks/get', { id: opened.notebookId });
    expect(notebook.cells.map((cell) => cell.kind)).toEqual(['note', 'query', 'question']);
    expect(notebook.cells[0]?.source).toContain('40 commodities with yield and price as numbers with their units; no malformed rows');
    const question = notebook.cells[2];
    expect(question).toMatchObject({ connectionId: opened.connectionId, data: { technique: 'dellma' } });
    expect(question?.source).toContain('Options: apple; avocado; grape; grapefruit; lemon; peach; pear');
    const documents = await workbench.invoke('documents/list', { notebookId: opened.notebookId });
    expect(documents).toMatchObject([{ name: 'fruit-sept-2021.txt', chars: report.length }]);
    // The example's query runs on the new database: the fruits' 2021 figures as numbers.
    const figures = await workbench.invoke('query/run', { requestId: 'q1', connectionId: opened.connectionId, text: notebook.cells[1]?.source ?? '', settings: { maxRows: 100, timeoutMs: 10_000 } });
    expect(figures.rows).toHaveLength(7);
    expect(figures.rows.find((row) => row[0] === 'apple')).toEqual(['apple', 19000, 'LB', 0.244, 'LB', 4636]);

    // The cost shown before the run counts the attached report in every prompt.
    const settings = { variant: 'pairs' as const, perAction: 4, batch: 12, overlap: 0.25 };
    const threeFruits = 'I farm 10 acres in California and must choose the one fruit to plant for next year.\nOptions: apple; avocado; pear\nUnknowns: climate condition';
    const bare = await workbench.invoke('dellma/estimate', { question: threeFruits, settings });
    const withReport = await workbench.invoke('dellma/estimate', { question: threeFruits, settings, notebookId: opened.notebookId });
    expect(withReport.calls).toBe(bare.calls);
    // The forecast and each ranking call read about 8,100 more characters (≈ 2,000 tokens).
    expect(withReport.promptTokens - bare.promptTokens).toBeGreaterThanOrEqual((bare.forecastCalls + bare.rankingCalls) * 2000);

    // Three options keep the scripted run short; the report is attached as in the example.
    const { runId } = await workbench.invoke('runs/start', {
      notebookId: opened.notebookId,
      connectionId: opened.connectionId,
      question: threeFruits,
      technique: 'dellma',
      mode: 'auto',
      techniqueOptions: settings,
    });
    const progress = await until(() => {
      const last = events.filter((entry) => entry.event === 'run-progress' && (entry.payload as EventPayload<'run-progress'>).runId === runId).at(-1)?.payload as EventPayload<'run-progress'> | undefined;
      return last && last.status !== 'running' ? last : undefined;
    });
    expect(server.failures).toEqual([]);
    expect(progress.status).toBe('answered');
    expect((await workbench.invoke('runs/list', { notebookId: opened.notebookId })).find((run) => run.id === runId)?.decision).toBe('avocado');

    // The forecast prompt holds the report's opening and the note that it was cut.
    const forecastPrompt = firstUser(server.chatRequests().find(isForecast) as ReceivedChatRequest);
    const used = documentLimits.contextChars;
    expect(forecastPrompt).toContain(`Document "fruit-sept-2021.txt" (attached by the analyst):\n${report.slice(0, used)}\n[Document truncated: the first ${used.toLocaleString('en-US')} of ${report.length.toLocaleString('en-US')} characters are used.]`);
    expect(forecastPrompt).not.toContain(report.slice(0, used + 1));
    // …and the data the context query retrieved.
    expect(forecastPrompt).toContain('Data retrieved from the database:');

    const cells = (await workbench.invoke('notebooks/get', { id: opened.notebookId })).cells.filter((cell) => cell.provenance.runId === runId);
    const byTool = (tool: string) => cells.find((cell) => (cell.data as { tool?: unknown }).tool === tool);
    const contextCell = byTool('dellma.context');
    expect(contextCell?.source).toContain(`Documents used: fruit-sept-2021.txt (${used.toLocaleString('en-US')} of ${report.length.toLocaleString('en-US')} characters, truncated).`);
    expect(dellmaContextSchema.parse((contextCell?.data as { input?: unknown }).input).documents).toEqual([{ name: 'fruit-sept-2021.txt', chars: report.length, usedChars: used, truncated: true }]);
    const forecastCell = byTool('dellma.forecast');
    expect(dellmaForecastSchema.parse((forecastCell?.data as { input?: unknown }).input).documents).toEqual([{ name: 'fruit-sept-2021.txt', chars: report.length, usedChars: used, truncated: true }]);
    expect(forecastCell?.source).toContain('From the context with the documents fruit-sept-2021.txt');
    expect(dellmaExpectedSchema.parse((byTool('dellma.expected')?.data as { input?: unknown }).input).chosen).toBe('avocado');
    expect(runStartOf(workspaceDir, runId).documents).toEqual([{ name: 'fruit-sept-2021.txt', chars: report.length, sha256: documents[0]?.sha256 }]);

    // The reports name the document: the HTML cover, the Markdown method table and the context step.
    const preview = await workbench.invoke('reports/preview', { runId, notebookId: opened.notebookId });
    expect(preview.html).toMatch(/<dt>Documents<\/dt><dd>fruit-sept-2021\.txt \([\d,]+ characters\)<\/dd>/);
    expect(preview.html).toContain('DeLLMa · context');
    // The context step's documents as a table: characters used of the whole, and the cut.
    expect(preview.html).toContain(
      `<table class="data dellma-context-documents"><thead><tr><th>Document</th><th class="num">Characters used</th><th class="num">Of</th><th>Truncated</th></tr></thead><tbody><tr><td>fruit-sept-2021.txt</td><td class="num">${used}</td><td class="num">${report.length}</td><td>yes</td></tr></tbody></table>`,
    );
    const exported = await workbench.invoke('reports/export', { runId, notebookId: opened.notebookId, format: 'md' });
    const markdown = readFileSync(exported?.path ?? '', 'utf8');
    expect(markdown).toContain(`| Document | fruit-sept-2021.txt: ${report.length} characters, text sha256 ${documents[0]?.sha256 ?? ''} |`);
    expect(markdown).toContain('**DeLLMa · context:** Context for the forecast and the rankings');
    expect(markdown).toContain(`| Document | Characters used | Of | Truncated |\n| --- | --- | --- | --- |\n| fruit-sept-2021.txt | ${used} | ${report.length} | yes |`);
  });

  it('gives the documents to DeLLMa only (a PlanRAG run’s record names none); attaching refuses what cannot be a document', async () => {
    const workspaceDir = tempDir();
    const workbench: Workbench = openWorkbench({ workspaceDir, platform: { transport: 'websocket' }, installDemo: false });
    onCleanup(() => workbench.close());
    const server = await startScriptedOpenAiServer([{ label: 'answer', content: '', toolCalls: [{ name: 'answer', arguments: { decision: 'pear', rationale: 'r', evidence: [] } }] }]);
    onCleanup(() => server.close());
    await workbench.invoke('model/save', { settings: { baseUrl: server.baseUrl, model: 'm', temperature: 0, maxTokens: 400, requestTimeoutMs: 5000, maxRetries: 0, stream: false, toolMode: 'tools' } });
    const opened = await workbench.invoke('examples/dellma-agriculture', {});
    const events: { event: EventName; payload: unknown }[] = [];
    workbench.subscribe((event, payload) => events.push({ event, payload }));
    const { runId } = await workbench.invoke('runs/start', { notebookId: opened.notebookId, connectionId: opened.connectionId, question: 'Which fruit?', technique: 'planrag', mode: 'auto' });
    await until(() => {
      const last = events.filter((entry) => entry.event === 'run-progress' && (entry.payload as EventPayload<'run-progress'>).runId === runId).at(-1)?.payload as EventPayload<'run-progress'> | undefined;
      return last && last.status !== 'running' ? last : undefined;
    });
    expect(runStartOf(workspaceDir, runId).documents).toBeUndefined();
    // Attaching through the service: a file that cannot be a document is refused with the reason.
    const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
    await expect(workbench.invoke('documents/add', { notebookId: opened.notebookId, name: 'scan.pdf', base64: base64(new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x00])) })).rejects.toThrow(/"scan.pdf" looks binary/);
    await expect(workbench.invoke('documents/add', { notebookId: opened.notebookId, name: 'x.txt', base64: 'not base64!' })).rejects.toThrow(/"x.txt" did not arrive as base64/);
    await expect(workbench.invoke('documents/add', { notebookId: opened.notebookId, name: 'big.txt', base64: base64(new Uint8Array(documentLimits.maxBytes + 1).fill(0x61)) })).rejects.toThrow(/documents are limited to 1,000,000 bytes/);
    const added = await workbench.invoke('documents/add', { notebookId: opened.notebookId, name: 'frost.md', base64: base64(new TextEncoder().encode('# Frost\nLate frost in March.')) });
    expect((await workbench.invoke('documents/get', { id: added.id })).text).toBe('# Frost\nLate frost in March.');
    expect((await workbench.invoke('documents/list', { notebookId: opened.notebookId })).map((document) => document.name)).toEqual(['fruit-sept-2021.txt', 'frost.md']);
    // A duplicated notebook takes its documents along.
    const copy = await workbench.invoke('notebooks/duplicate', { id: opened.notebookId });
    expect((await workbench.invoke('documents/list', { notebookId: copy.id })).map((document) => document.name)).toEqual(['fruit-sept-2021.txt', 'frost.md']);
    expect(firstUser(server.chatRequests()[0] as ReceivedChatRequest)).not.toContain('Document "fruit-sept-2021.txt"');
  });
});
