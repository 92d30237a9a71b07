/**
 * `dwb run --technique dellma` with a variant and sizes: the options reach the run (the run
 * log's sampling cell and the model calls follow them), and bad values are refused with the
 * option named, before any model call.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dellmaFitSchema, dellmaSamplingSchema } from '../../../src-main/contract/dellma';
import { runDwb } from '../../support/cli';
import { tinySqlite } from '../../support/fixtures';
import { messageText, startScriptedOpenAiServer, type ReceivedChatRequest, type ScriptedOpenAiServer, type ScriptedTurn } from '../../support/scripted-openai';
import { useTempDirs } from '../../support/temp';
import { forecastAnswer, isForecast, rankingPreferring, scenariosOf } from './scripted-dellma-model';

const tempDir = useTempDirs();
let server: ScriptedOpenAiServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const model = (request: ReceivedChatRequest): ScriptedTurn => {
  const text = messageText(request.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });
  if (text.includes('Write one query that retrieves')) return { label: 'query', content: '```sql\nSELECT name FROM region\n```' };
  if (isForecast(request)) return { label: 'forecast', content: forecastAnswer(request) };
  if (scenariosOf(request).length === 0) return { label: 'baseline answer', content: JSON.stringify({ decision: 'south' }) };
  const rank = rankingPreferring(request, 'south');
  return { label: 'rank', content: JSON.stringify({ decision: rank[0], rank, explanation: 'South first.' }) };
};

function inputs(): { database: string; questionFile: string } {
  const dir = tempDir();
  const questionFile = join(dir, 'question.txt');
  writeFileSync(questionFile, 'Which region should get the new store?\nOptions: north; south');
  return { database: tinySqlite(dir), questionFile };
}

describe('dwb run --technique dellma --variant …', () => {
  it('runs Top-1 with the sizes given: 2 options × 4 futures in windows of 4 at stride 2', async () => {
    server = await startScriptedOpenAiServer(Array.from({ length: 10 }, () => model));
    const { database, questionFile } = inputs();
    const out = tempDir();
    const result = await runDwb(['run', '--technique', 'dellma', '--variant', 'top1', '--samples', '4', '--batch', '4', '--overlap', '0.5', '--connection', `sqlite:${database}`, '--question-file', questionFile, '--base-url', server.baseUrl, '--model', 'scripted', '--out', out]);
    expect(server.failures).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n').at(-1)).toBe('decision: south');
    // The context query, the forecast, 3 rankings (windows at 0, 2, 4).
    expect(server.requests).toHaveLength(5);
    const events = readFileSync(join(out, 'run-log.jsonl'), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { event: { tool?: string; input?: unknown } }).event);
    expect(dellmaSamplingSchema.parse(events.find((event) => event.tool === 'dellma.sampling')?.input)).toMatchObject({ variant: 'top1', perAction: 4, batch: 4, overlap: 0.5, items: 8, windows: [{ start: 0, size: 4 }, { start: 2, size: 4 }, { start: 4, size: 4 }] });
    expect(dellmaFitSchema.parse(events.find((event) => event.tool === 'dellma.fit')?.input)).toMatchObject({ kind: 'top1', comparisons: 3 });
  });

  it('runs the zero-shot baseline: the context query and one answer, the model’s decision (not labelled as computed)', async () => {
    server = await startScriptedOpenAiServer(Array.from({ length: 4 }, () => model));
    const { database, questionFile } = inputs();
    const out = tempDir();
    const result = await runDwb(['run', '--technique', 'dellma', '--variant', 'zero-shot', '--connection', `sqlite:${database}`, '--question-file', questionFile, '--base-url', server.baseUrl, '--model', 'scripted', '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n').at(-1)).toBe('decision: south');
    expect(server.requests).toHaveLength(2);
    const events = readFileSync(join(out, 'run-log.jsonl'), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { event: { type: string; tool?: string; computedBy?: string } }).event);
    expect(events.filter((event) => event.tool?.startsWith('dellma.')).map((event) => event.tool)).toEqual(['dellma.frame']);
    const decision = events.find((event) => event.type === 'decision');
    expect(decision).toBeDefined();
    expect(decision?.computedBy).toBeUndefined();
  });

  it('refuses bad values with the option named, and DeLLMa options for another technique', async () => {
    server = await startScriptedOpenAiServer([]);
    const { database, questionFile } = inputs();
    const run = (...extra: string[]) => runDwb(['run', '--connection', `sqlite:${database}`, '--question-file', questionFile, '--base-url', server!.baseUrl, '--model', 'scripted', '--out', tempDir(), ...extra]);
    const cases: [string[], string][] = [
      [['--technique', 'dellma', '--overlap', '0.95'], '--overlap: the overlap must be at most 0.9'],
      [['--technique', 'dellma', '--samples', 'many'], '--samples takes a number, got "many"'],
      [['--technique', 'dellma', '--batch', '8', '--overlap', '0.9'], '--overlap: the minibatch size and overlap give a stride ⌊b(1−q)⌋ of 0: lower the overlap'],
      [['--technique', 'dellma', '--variant', 'best'], '--variant: must be one of pairs, top1, naive, zero-shot, cot, sc, got "best"'],
      [['--technique', 'planrag', '--samples', '8'], '--samples is for --technique dellma, not planrag'],
    ];
    for (const [extra, message] of cases) {
      const result = await run(...extra);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(message);
    }
    expect(server.requests).toHaveLength(0);
  });
});
