/**
 * Documents and the agriculture database from the command line: `dwb run --document FILE`
 * puts the file's text in DeLLMa's forecast prompt and names it in the run log; a file that
 * cannot be a document, or a technique that reads none, is refused before any model call.
 * `dwb dellma import` builds the example's database and lists a damaged copy's malformed rows.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { dellmaContextSchema } from '../../../src-main/contract/dellma';
import { runDwb } from '../../support/cli';
import { repoRoot, tinySqlite } from '../../support/fixtures';
import { messageText, startScriptedOpenAiServer, type ReceivedChatRequest, type ScriptedOpenAiServer, type ScriptedTurn } from '../../support/scripted-openai';
import { useTempDirs } from '../../support/temp';
import { forecastAnswer, isForecast, rankingPreferring } from './scripted-dellma-model';

const tempDir = useTempDirs();
let server: ScriptedOpenAiServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const firstUser = (request: ReceivedChatRequest): string => messageText(request.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });
const model = (request: ReceivedChatRequest): ScriptedTurn => {
  if (firstUser(request).includes('Write one query that retrieves')) return { label: 'query', content: '```sql\nSELECT name FROM region\n```' };
  if (isForecast(request)) return { label: 'forecast', content: forecastAnswer(request) };
  const rank = rankingPreferring(request, 'south');
  return { label: 'rank', content: JSON.stringify({ decision: rank[0], rank, explanation: 'South first.' }) };
};

function inputs(): { dir: string; database: string; questionFile: string } {
  const dir = tempDir();
  const questionFile = join(dir, 'question.txt');
  writeFileSync(questionFile, 'Which region should get the new store?\nOptions: north; south');
  return { dir, database: tinySqlite(dir), questionFile };
}

describe('dwb run --document', () => {
  it('reads the documents into DeLLMa’s context and names them in the run log', async () => {
    server = await startScriptedOpenAiServer(Array.from({ length: 6 }, () => model));
    const { dir, database, questionFile } = inputs();
    writeFileSync(join(dir, 'survey.md'), '# Footfall survey\nThe south mall opens in May; footfall there doubles.\n');
    writeFileSync(join(dir, 'memo.txt'), 'Rents in the north rise 8% next year.');
    const out = tempDir();
    const result = await runDwb(['run', '--technique', 'dellma', '--samples', '2', '--batch', '4', '--document', join(dir, 'survey.md'), '--document', join(dir, 'memo.txt'), '--connection', `sqlite:${database}`, '--question-file', questionFile, '--base-url', server.baseUrl, '--model', 'scripted', '--out', out]);
    expect(server.failures).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n').at(-1)).toBe('decision: south');
    const forecastPrompt = firstUser(server.chatRequests().find(isForecast) as ReceivedChatRequest);
    expect(forecastPrompt).toContain('Document "survey.md" (attached by the analyst):\n# Footfall survey\nThe south mall opens in May; footfall there doubles.\n');
    expect(forecastPrompt).toContain('Document "memo.txt" (attached by the analyst):\nRents in the north rise 8% next year.');
    const events = readFileSync(join(out, 'run-log.jsonl'), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { event: { type: string; tool?: string; input?: unknown; documents?: unknown } }).event);
    expect(events[0]?.documents).toMatchObject([{ name: 'survey.md', chars: 71 }, { name: 'memo.txt', chars: 37 }]);
    expect(dellmaContextSchema.parse(events.find((event) => event.tool === 'dellma.context')?.input).documents).toEqual([
      { name: 'survey.md', chars: 71, usedChars: 71, truncated: false },
      { name: 'memo.txt', chars: 37, usedChars: 37, truncated: false },
    ]);
    expect(result.stderr).toContain('Documents used: survey.md (71 characters); memo.txt (37 characters)');
  });

  it('refuses a binary or non-UTF-8 file, a missing one, and documents for a technique that reads none, before any model call', async () => {
    server = await startScriptedOpenAiServer([]);
    const { dir, database, questionFile } = inputs();
    writeFileSync(join(dir, 'scan.pdf'), Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0x01]));
    writeFileSync(join(dir, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    writeFileSync(join(dir, 'ok.txt'), 'fine');
    const base = ['run', '--connection', `sqlite:${database}`, '--question-file', questionFile, '--base-url', server.baseUrl, '--model', 'scripted', '--out', tempDir()];
    const binary = await runDwb([...base, '--technique', 'dellma', '--document', join(dir, 'scan.pdf')]);
    expect(binary.code).not.toBe(0);
    expect(binary.stderr).toContain('"scan.pdf" looks binary (it contains NUL bytes)');
    const latin1 = await runDwb([...base, '--technique', 'dellma', '--document', join(dir, 'latin1.txt')]);
    expect(latin1.stderr).toContain('"latin1.txt" is not UTF-8 text');
    const missing = await runDwb([...base, '--technique', 'dellma', '--document', join(dir, 'nope.txt')]);
    expect(missing.stderr).toMatch(/Cannot read the document .*nope\.txt: no such file \(ENOENT\)$/m);
    const folder = await runDwb([...base, '--technique', 'dellma', '--document', dir]);
    expect(folder.stderr).toMatch(/Cannot read the document .*: it is a folder, not a file \(EISDIR\)$/m);
    const planrag = await runDwb([...base, '--technique', 'planrag', '--document', join(dir, 'ok.txt')]);
    expect(planrag.stderr).toContain('--document is read by --technique dellma only, not planrag');
    expect(server.requests).toHaveLength(0);
  });
});

describe('dwb dellma import', () => {
  const agriculture = join(repoRoot, 'fixtures', 'dellma', 'agriculture');

  it('builds the agriculture database and reports a damaged copy’s malformed rows', async () => {
    const target = join(tempDir(), 'agriculture.sqlite');
    const clean = await runDwb(['dellma', 'import', '--problems', 'agriculture', '--target', `sqlite:${target}`]);
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stdout.trim()).toBe(`created  sqlite:${target}  (ca_crop_stats_2021 40, import_problems 0)`);
    const database = new Database(target, { readonly: true });
    expect(database.prepare("SELECT yield_per_acre, yield_unit, price, price_unit FROM ca_crop_stats_2021 WHERE commodity = 'peach'").get()).toEqual({ yield_per_acre: 13.7, yield_unit: 'TON', price: 763, price_unit: 'TON' });
    database.close();

    const damaged = tempDir();
    cpSync(agriculture, damaged, { recursive: true });
    const csv = join(damaged, 'stats', 'CA-2021.csv');
    writeFileSync(csv, readFileSync(csv, 'utf8').replace('peach,13.7 TONS / ACRE,763 $ / TON', 'peach,13.7 TONS / ACRE,about 763 $ / TON'));
    const result = await runDwb(['dellma', 'import', '--problems', 'agriculture', '--data', damaged, '--target', `sqlite:${join(damaged, 'out.sqlite')}`]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('(ca_crop_stats_2021 39, import_problems 1)');
    expect(result.stderr.trim()).toBe(`malformed row ${csv}:11: price "about 763 $ / TON" is not "<number> $ / <unit>": peach,13.7 TONS / ACRE,about 763 $ / TON`);
  });

  it('refuses stocks and a target that is not sqlite:FILE', async () => {
    const stocks = await runDwb(['dellma', 'import', '--problems', 'stocks', '--target', `sqlite:${join(tempDir(), 'x.sqlite')}`]);
    expect(stocks.code).not.toBe(0);
    expect(stocks.stderr).toContain('only agriculture has a database to import');
    const duck = await runDwb(['dellma', 'import', '--problems', 'agriculture', '--target', 'duckdb:/tmp/x']);
    expect(duck.stderr).toContain('--target must be sqlite:FILE, got "duckdb:/tmp/x"');
  });
});
