/**
 * [ext] `dwb run --technique dellma` with what-if lines in the question file: the built CLI
 * computes the exact outcomes in the sandbox's worker process, records them as `dellma.exact`
 * in the run log, and leaves the database file byte-identical.
 */
import Database from 'better-sqlite3';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dellmaExactSchema } from '../../../src-main/contract/dellma';
import { runDwb } from '../../support/cli';
import { messageText, startScriptedOpenAiServer, type ReceivedChatRequest, type ScriptedOpenAiServer, type ScriptedTurn } from '../../support/scripted-openai';
import { useTempDirs } from '../../support/temp';
import { rankingPreferring } from './scripted-dellma-model';

const tempDir = useTempDirs();
let server: ScriptedOpenAiServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const model = (request: ReceivedChatRequest): ScriptedTurn => {
  const text = messageText(request.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });
  if (text.includes('Write one query that retrieves')) return { label: 'query', content: '```sql\nSELECT region, qty FROM sales\n```' };
  if (text.includes('give exactly 3 distinct outcomes')) {
    const demand = /- demand: (.*)\n/.exec(text)?.[1]?.split('; ') ?? [];
    const perOption = ['north', 'south'].map((option) => ({ name: `how ${option} turns out`, values: ['worse', 'same', 'better'].map((value) => ({ value, likelihood: 'likely' })) }));
    return { label: 'forecast', content: JSON.stringify({ factors: [{ name: 'demand', values: demand.map((value) => ({ value, likelihood: 'likely' })) }, ...perOption] }) };
  }
  const rank = rankingPreferring(request, 'south');
  return { label: 'rank', content: JSON.stringify({ decision: rank[0], rank, explanation: 'South first.' }) };
};

describe('dwb run with what-if lines', () => {
  it('records the exact outcomes beside the decision and leaves the file untouched', async () => {
    server = await startScriptedOpenAiServer(Array.from({ length: 6 }, () => model));
    const dir = tempDir();
    const database = join(dir, 'sales.sqlite');
    const setup = new Database(database);
    setup.exec("CREATE TABLE sales (region TEXT PRIMARY KEY, qty REAL NOT NULL); INSERT INTO sales VALUES ('north', 10), ('south', 30);");
    setup.close();
    const bytes = readFileSync(database);
    const questionFile = join(dir, 'question.txt');
    // The objective is the chosen region's quantity: north 10 or 20, south 30 or 60, equally likely.
    writeFileSync(
      questionFile,
      [
        'Which region should get the new store?',
        'Options: north; south',
        'Unknowns: demand',
        'What-if demand = steady: none',
        'What-if demand = up: UPDATE sales SET qty = qty * 2',
        "What-if option: UPDATE sales SET region = 'chosen' WHERE region = :candidate",
        "What-if objective: SELECT coalesce(sum(qty), 0) FROM sales WHERE region = 'chosen'",
      ].join('\n'),
    );
    const out = tempDir();
    const result = await runDwb(['run', '--technique', 'dellma', '--samples', '8', '--connection', `sqlite:${database}`, '--question-file', questionFile, '--base-url', server.baseUrl, '--model', 'scripted', '--out', out]);
    expect(server.failures).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n').at(-1)).toBe('decision: south');
    const events = readFileSync(join(out, 'run-log.jsonl'), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { event: { tool?: string; input?: unknown } }).event);
    const exact = dellmaExactSchema.parse(events.find((event) => event.tool === 'dellma.exact')?.input);
    expect(exact.error).toBeNull();
    expect(exact.rows.map((row) => [row.action, row.expected, row.coverage])).toEqual([
      ['north', 15, 1],
      ['south', 45, 1],
    ]);
    expect([exact.exactBest, exact.agrees, exact.isolation, exact.error]).toEqual(['south', true, 'process', null]);
    expect(readFileSync(database).equals(bytes)).toBe(true);
  });
});
