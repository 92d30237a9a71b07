/**
 * [ext] DeLLMa's exact outcomes on the analyst's own data: a real SQLite file, the question's
 * what-if lines, the real `openai` SDK against the scripted model (which prefers north in
 * every ranking). Each sampled future × option is computed in the what-if sandbox and the
 * probability-weighted expected objective equals the hand-computed one; the source file is
 * byte-identical afterwards; and the exact outcomes never enter the utilities or the decision.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dellmaExactSchema, dellmaExpectedSchema, dellmaFitSchema, dellmaForecastSchema, dellmaRunSettingsSchema, type DellmaExact, type DellmaRunSettingsInput } from '../../../src-main/contract/dellma';
import type { RunEvent } from '../../../src-main/contract/run';
import { openConnectionUri, parseConnectionUri } from '../../../src-main/connectors/connection-uri';
import { automaticGate } from '../../../src-main/engine/review-gate';
import { defaultRunLimits, runDecision } from '../../../src-main/engine/decision-run';
import { createOpenAiProvider } from '../../../src-main/llm/openai-provider';
import { bundleFromRun } from '../../../src-main/reports/prepare-bundle';
import { buildReport } from '../../../src-main/reports/report-model';
import { renderHtmlReport } from '../../../src-main/reports/render-html';
import { renderMarkdownReport } from '../../../src-main/reports/render-markdown';
import { runScenariosFor } from '../../../src-main/whatif/run-scenarios';
import { sampleMaterials } from '../../unit/reports/bundle-fixture';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer } from '../../support/scripted-openai';
import { useTempDirs } from '../../support/temp';
import { salesWhatIfModel as model } from './scripted-dellma-model';

const tempDir = useTempDirs();
const servers: ScriptedOpenAiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Sales per region (qty × price) and which store is open: north 100 × 2, south 80 × 3, none open. */
function salesDatabase(directory: string, { southName = 'south', qtyCheck = '' } = {}): string {
  const path = join(directory, 'sales.sqlite');
  const database = new Database(path);
  database.exec(`
    CREATE TABLE sales (region TEXT PRIMARY KEY, qty REAL NOT NULL ${qtyCheck}, price REAL NOT NULL);
    CREATE TABLE store (region TEXT PRIMARY KEY, open INTEGER NOT NULL);
  `);
  database.prepare('INSERT INTO sales VALUES (?, ?, ?), (?, ?, ?)').run('north', 100, 2, southName, 80, 3);
  database.prepare('INSERT INTO store VALUES (?, 0), (?, 0)').run('north', southName);
  database.close();
  return path;
}

const frame = ['Which region should get the new store?', 'Options: north; south', 'Unknowns: demand'];
const objective = 'What-if objective: SELECT coalesce(sum(s.qty * s.price), 0) FROM sales s JOIN store t ON t.region = s.region WHERE t.open = 1';
const openStore = 'What-if option: UPDATE store SET open = 1 WHERE region = :candidate';
const mapping = ['What-if demand = low: UPDATE sales SET qty = qty * 0.5', 'What-if demand = high: UPDATE sales SET qty = qty * 2', openStore, objective];

/** A DeLLMa run on the data at `path` (SQLite unless `uri` says otherwise, e.g. `csv:…`). */
async function decide(path: string, lines: string[], settings: DellmaRunSettingsInput = {}, questionFrame: string[] = frame, uri = `sqlite:${path}`): Promise<{ events: RunEvent[]; decision: string | null; status: string; requests: string[] }> {
  const server = await startScriptedOpenAiServer(Array.from({ length: 40 }, () => model));
  servers.push(server);
  const connector = await openConnectionUri(uri);
  try {
    const events: RunEvent[] = [];
    const outcome = await runDecision({
      question: [...questionFrame, ...lines].join('\n'),
      rules: '',
      technique: 'dellma',
      connector,
      connectionDescription: 'sales',
      provider: createOpenAiProvider({ baseUrl: server.baseUrl, model: 'scripted', requestTimeoutMs: 5000, maxRetries: 0, toolMode: 'tools' }),
      toolMode: 'tools',
      limits: defaultRunLimits,
      gate: automaticGate,
      emit: (event) => events.push(event),
      scenarios: runScenariosFor(parseConnectionUri(uri), connector),
      techniqueOptions: dellmaRunSettingsSchema.parse(settings),
    });
    expect(server.failures).toEqual([]);
    return { events, decision: outcome.decision, status: outcome.status, requests: server.chatRequests().map((request) => JSON.stringify(request.chat.messages)) };
  } finally {
    await connector.close();
  }
}

const inputs = (events: RunEvent[], tool: string): unknown[] => events.flatMap((event) => (event.type === 'tool' && event.tool === tool ? [event.input] : []));
const exactOf = (events: RunEvent[]): DellmaExact => dellmaExactSchema.parse(inputs(events, 'dellma.exact')[0]);

describe('DeLLMa exact outcomes in the what-if sandbox', () => {
  it('computes each future × option exactly, weighs them by the forecast, and leaves the file byte-identical', async () => {
    const path = salesDatabase(tempDir());
    const bytes = readFileSync(path);
    const run = await decide(path, mapping);
    expect(run.status).toBe('answered');
    expect(run.decision).toBe('north');
    expect(readFileSync(path).equals(bytes)).toBe(true);

    // The forecast's demand values are the analyst's, in the analyst's order; the model gave the likelihoods.
    const demand = dellmaForecastSchema.parse(inputs(run.events, 'dellma.forecast')[0]).factors[0];
    expect(demand).toEqual({ name: 'demand', action: null, mapped: true, values: [{ value: 'low', likelihood: 'likely', probability: 5 / 9 }, { value: 'high', likelihood: 'somewhat likely', probability: 4 / 9 }] });

    const exact = exactOf(run.events);
    expect(exact.error).toBeNull();
    // north: low 50 × 2 = 100, high 200 × 2 = 400; south: low 40 × 3 = 120, high 160 × 3 = 480.
    expect(exact.scenarios.map((scenario) => [scenario.future, scenario.action, scenario.objective, scenario.status])).toEqual([
      ['demand = low', 'north', 100, 'computed'],
      ['demand = low', 'south', 120, 'computed'],
      ['demand = high', 'north', 400, 'computed'],
      ['demand = high', 'south', 480, 'computed'],
    ]);
    expect(exact.scenarios.reduce((sum, scenario) => sum + scenario.draws, 0)).toBe(2 * 16);
    // (5/9)·100 + (4/9)·400 = 2100/9; (5/9)·120 + (4/9)·480 = 2520/9; both futures drawn, so the whole forecast is covered.
    expect(exact.rows.map((row) => row.action)).toEqual(['north', 'south']);
    expect(exact.rows[0]?.expected).toBeCloseTo(2100 / 9, 9);
    expect(exact.rows[1]?.expected).toBeCloseTo(2520 / 9, 9);
    expect(exact.rows.map((row) => row.coverage)).toEqual([1, 1].map((one) => expect.closeTo(one, 12)));
    expect(exact.baseline).toBe(0);
    expect(exact.evaluations).toBe(4);
    expect(exact.capped).toBeNull();
    // The exactly-computed best disagrees with DeLLMa's decision (the scripted model always prefers north): said, not corrected.
    expect([exact.exactBest, exact.decision, exact.agrees]).toEqual(['south', 'north', false]);
    expect(exact.sourceDigestBefore).toBe(exact.sourceDigestAfter);
    // The exact cell comes after the expected utilities and before the decision.
    const order = run.events.flatMap((event) => (event.type === 'tool' ? [event.tool] : event.type === 'decision' ? ['decision'] : []));
    expect(order.indexOf('dellma.exact')).toBe(order.indexOf('dellma.expected') + 1);
    expect(order.indexOf('decision')).toBeGreaterThan(order.indexOf('dellma.exact'));
    // The model never saw the SQL.
    expect(run.requests.some((request) => request.includes('UPDATE sales'))).toBe(false);

    // Both reports give the exact outcomes a section of their own, labelled, after the decision's.
    const report = buildReport(bundleFromRun(sampleMaterials(run.events), { at: '2026-01-02T10:00:00.000Z', generator: 'Decision Workbench test' }));
    const markdown = renderMarkdownReport(report);
    const html = renderHtmlReport(report);
    expect(markdown).toMatch(/## \d+\. Exact outcomes in the what-if sandbox \[ext\]\n\nComputed by applying the question’s what-if changes to a copy of the data .*these outcomes did not enter the fit, the expected utilities or the decision\. Exactly-computed best: south, which disagrees with DeLLMa’s decision \(north\)\./);
    expect(markdown).toContain('| south | 280 | 1.000 | 2 |');
    expect(markdown.indexOf('Exact outcomes in the what-if sandbox [ext]')).toBeGreaterThan(markdown.indexOf('Decision and rationale'));
    expect(html).toContain('<h2><span class="num">');
    expect(html).toMatch(/Exact outcomes in the what-if sandbox \[ext\]<\/h2><p>Computed by applying/);
  });

  it('never mixes the exact outcomes into the utilities: other SQL, other outcomes, the same decision and expected utilities', async () => {
    const directory = tempDir();
    const path = salesDatabase(directory);
    const first = await decide(path, mapping);
    // Same values, reversed effects and the other direction: the exact best flips, DeLLMa's numbers must not.
    const other = await decide(path, ['What-if demand = low: UPDATE sales SET qty = qty * 3', 'What-if demand = high: UPDATE sales SET qty = qty * 0.1', openStore, objective, 'What-if direction: minimize']);
    expect(other.requests).toEqual(first.requests);
    const expected = (events: RunEvent[]): unknown => dellmaExpectedSchema.parse(inputs(events, 'dellma.expected')[0]);
    const fit = (events: RunEvent[]): unknown => dellmaFitSchema.parse(inputs(events, 'dellma.fit')[0]).items.map((item) => item.utility);
    expect(expected(other.events)).toEqual(expected(first.events));
    expect(fit(other.events)).toEqual(fit(first.events));
    expect(other.decision).toBe(first.decision);
    expect(exactOf(other.events).rows.map((row) => row.expected)).not.toEqual(exactOf(first.events).rows.map((row) => row.expected));
    expect(exactOf(other.events).exactBest).toBe('north');
    expect(exactOf(other.events).agrees).toBe(true);
  });

  it('marks futures it cannot compute, reports a failing change in the cell, and stops a run whose lines cannot be read', async () => {
    const path = salesDatabase(tempDir());
    // South has no change: its futures are "not computable", and the decision is not compared.
    const partial = await decide(path, [...mapping.filter((line) => line !== openStore), "What-if option north: UPDATE store SET open = 1 WHERE region = 'north'"]);
    const exact = exactOf(partial.events);
    expect(exact.scenarios.filter((scenario) => scenario.action === 'south').map((scenario) => [scenario.status, scenario.reason])).toEqual([
      ['not computable', 'option "south" has no what-if change'],
      ['not computable', 'option "south" has no what-if change'],
    ]);
    expect(exact.rows.map((row) => row.expected)).toEqual([expect.closeTo(2100 / 9, 9), null]);
    expect(exact.agrees).toBeNull();
    const output = partial.events.find((event) => event.type === 'tool' && event.tool === 'dellma.exact');
    expect(output?.type === 'tool' && output.output).toContain("Exactly-computed best: north; not compared with DeLLMa's decision (not every option has an exact expected objective).");

    const failing = await decide(path, ['What-if demand = low: UPDATE nowhere SET qty = 1', 'What-if demand = high: none', openStore, objective]);
    expect(failing.status).toBe('answered');
    expect(exactOf(failing.events).error).toBe('"demand" = "low": SQLite: no such table: nowhere');

    // The paper's baselines sample no futures: the cell says so.
    const baseline = await decide(path, mapping, { variant: 'zero-shot' });
    expect(baseline.decision).toBe('north');
    expect(exactOf(baseline.events).error).toBe('the zero-shot baseline samples no futures, so there are none to compute');

    const unreadable = await decide(path, ['What-if demand = medium UPDATE sales SET qty = 1', objective]);
    expect(unreadable.status).toBe('failed');
    expect(unreadable.requests).toEqual([]);
    expect(unreadable.events.find((event) => event.type === 'run-end')).toMatchObject({ message: expect.stringContaining('The what-if lines cannot be used: line 4: "What-if demand = medium UPDATE sales SET qty = 1" has no ":"') });
  });
});

describe('DeLLMa exact outcomes on bad input: a specific message in the cell, and the decision stands', () => {
  const cellText = (events: RunEvent[]): string => {
    const event = events.find((candidate) => candidate.type === 'tool' && candidate.tool === 'dellma.exact');
    return event?.type === 'tool' ? event.output : '';
  };

  it('a change that fails on some futures only: those are marked failed with SQLite’s message, the others still count', async () => {
    // High demand doubles north's 100 past the CHECK; low demand halves it, which the CHECK allows.
    const path = salesDatabase(tempDir(), { qtyCheck: 'CHECK (qty <= 150)' });
    const bytes = readFileSync(path);
    const run = await decide(path, mapping);
    expect([run.status, run.decision]).toEqual(['answered', 'north']);
    const exact = exactOf(run.events);
    expect(exact.error).toBeNull();
    expect(exact.scenarios.map((scenario) => [scenario.future, scenario.action, scenario.objective, scenario.status, scenario.reason])).toEqual([
      ['demand = low', 'north', 100, 'computed', null],
      ['demand = low', 'south', 120, 'computed', null],
      ['demand = high', 'north', null, 'failed', '"demand" = "high" for candidate north: SQLite: CHECK constraint failed: qty <= 150'],
      ['demand = high', 'south', null, 'failed', '"demand" = "high" for candidate south: SQLite: CHECK constraint failed: qty <= 150'],
    ]);
    // Only the low-demand future (p = 5/9) is computed for either option.
    expect(exact.rows.map((row) => [row.expected, row.coverage, row.computed])).toEqual([
      [100, expect.closeTo(5 / 9, 12), 1],
      [120, expect.closeTo(5 / 9, 12), 1],
    ]);
    expect(exact.agrees).toBeNull();
    expect(cellText(run.events)).toContain("2 failed (see each one's reason)");
    expect(cellText(run.events)).toContain("not compared with DeLLMa's decision (2 future × option failed in the sandbox, so the options are not weighed over the same futures)");
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it('an objective that is NULL on some futures: those fail with "returned NULL", the others still count', async () => {
    const path = salesDatabase(tempDir());
    // Revenue of the regions selling more than 90: north alone as is (200), none at low demand, both at high (400 + 480).
    const run = await decide(path, [...mapping.filter((line) => line !== objective), 'What-if objective: SELECT sum(qty * price) FROM sales WHERE qty > 90']);
    expect([run.status, run.decision]).toEqual(['answered', 'north']);
    const exact = exactOf(run.events);
    expect(exact.error).toBeNull();
    expect(exact.baseline).toBe(200);
    expect(exact.scenarios.map((scenario) => [scenario.future, scenario.action, scenario.objective, scenario.status, scenario.reason])).toEqual([
      ['demand = low', 'north', null, 'failed', 'the objective must return a finite number; after candidate north it returned NULL'],
      ['demand = low', 'south', null, 'failed', 'the objective must return a finite number; after candidate south it returned NULL'],
      ['demand = high', 'north', 880, 'computed', null],
      ['demand = high', 'south', 880, 'computed', null],
    ]);
    expect(exact.tiedBest).toEqual(['north', 'south']);
  });

  it('an objective that fails on the unchanged data stops the exact outcomes before any future, naming the objective and the database error', async () => {
    const path = salesDatabase(tempDir());
    const withObjective = (query: string): string[] => [...mapping.filter((line) => line !== objective), `What-if objective: ${query}`];
    // SQLite compiles this objective but fails while running it: the region names are not JSON.
    const broken = "SELECT json_extract(region, '$.size') FROM sales WHERE region = 'north'";
    const failing = await decide(path, withObjective(broken));
    expect([failing.status, failing.decision]).toEqual(['answered', 'north']);
    const exact = exactOf(failing.events);
    expect(exact.error).toBe(`the objective fails on the unchanged data, so none of the 4 scenarios was run (objective: ${broken}): objective before candidate north: SQLite: malformed JSON`);
    expect(exact.scenarios.some((scenario) => scenario.status === 'computed' || scenario.status === 'failed')).toBe(false);
    expect(cellText(failing.events)).toBe(
      `[ext] Exact outcomes in the what-if sandbox (beside the elicited utilities, not part of them): not computed: the objective fails on the unchanged data, so none of the 4 scenarios was run (objective: ${broken}): objective before candidate north: SQLite: malformed JSON.`,
    );

    const text = await decide(path, withObjective("SELECT 'a lot'"));
    expect(exactOf(text.events).error).toBe(`the objective fails on the unchanged data, so none of the 4 scenarios was run (objective: SELECT 'a lot'): the objective must return a finite number; before candidate north it returned "a lot"`);
    const rows = await decide(path, withObjective('SELECT qty FROM sales'));
    expect(exactOf(rows.events).error).toBe(
      'the objective fails on the unchanged data, so none of the 4 scenarios was run (objective: SELECT qty FROM sales): the objective must return exactly one number (one row, one column); before candidate north it returned 2 row(s) of 1 column(s)',
    );
  });

  it('binds an option name with quotes, an apostrophe and non-Latin letters as :candidate', async () => {
    const odd = 'Zoë\'s "Süd" 北区';
    const path = salesDatabase(tempDir(), { southName: odd });
    const run = await decide(path, mapping, {}, ['Which region should get the new store?', `Options: north; ${odd}`, 'Unknowns: demand']);
    expect([run.status, run.decision]).toEqual(['answered', 'north']);
    const exact = exactOf(run.events);
    expect(exact.error).toBeNull();
    // The same numbers as with "south": the odd name reached the WHERE clause intact.
    expect(exact.scenarios.map((scenario) => [scenario.action, scenario.objective])).toEqual([
      ['north', 100],
      [odd, 120],
      ['north', 400],
      [odd, 480],
    ]);
    expect(exact.rows.map((row) => row.expected)).toEqual([expect.closeTo(2100 / 9, 9), expect.closeTo(2520 / 9, 9)]);
  });

  it('caps a huge number of futures at the most probable ones and says so', async () => {
    const path = salesDatabase(tempDir());
    const unknowns = Array.from({ length: 7 }, (_, index) => `u${index + 1}`);
    const lines = unknowns.flatMap((unknown, index) => [
      `What-if ${unknown} = up: UPDATE sales SET qty = qty + ${index + 1}`,
      `What-if ${unknown} = flat: none`,
      `What-if ${unknown} = down: UPDATE sales SET qty = qty - ${index + 1}`,
    ]);
    const run = await decide(path, [...lines, openStore, objective], { perAction: 256, batch: 100 }, ['Which region should get the new store?', 'Options: north; south', `Unknowns: ${unknowns.join('; ')}`]);
    expect([run.status, run.decision]).toEqual(['answered', 'north']);
    const exact = exactOf(run.events);
    expect(exact.error).toBeNull();
    const futures = exact.scenarios.length / 2;
    expect(futures).toBeGreaterThan(100);
    expect(exact.evaluations).toBe(200);
    const overCap = exact.scenarios.filter((scenario) => scenario.status === 'over the cap');
    expect(overCap.length).toBe(exact.scenarios.length - 200);
    expect(overCap.every((scenario) => scenario.reason === 'over the cap of 200 sandbox evaluations')).toBe(true);
    expect(exact.capped).toBe(
      `Capped: 200 sandbox evaluations made, ${overCap.length} more left out (the cap is 200 distinct future × option runs); the least probable futures are marked "over the cap" and the expected objectives cover less of the forecast.`,
    );
    // The computed futures are the most probable ones.
    const computed = exact.scenarios.filter((scenario) => scenario.status === 'computed');
    expect(Math.min(...computed.map((scenario) => scenario.probability))).toBeGreaterThanOrEqual(Math.max(...overCap.map((scenario) => scenario.probability)));
    expect(exact.rows.every((row) => row.coverage < 1 && row.computed === 100)).toBe(true);
    expect(cellText(run.events)).toContain(exact.capped);
  });
});

describe.each(['csv', 'parquet'] as const)('DeLLMa exact outcomes on a %s file (through DuckDB)', (format) => {
  it('computes each future × option exactly and leaves the file byte-identical', async () => {
    const directory = tempDir();
    const csv = join(directory, 'sales.csv');
    writeFileSync(csv, 'region,qty,price,open\nnorth,100,2,0\nsouth,80,3,0\n');
    let path = csv;
    if (format === 'parquet') {
      path = join(directory, 'sales.parquet');
      const instance = await DuckDBInstance.create(':memory:');
      const connection = await instance.connect();
      await connection.run(`COPY (SELECT * FROM read_csv('${csv}')) TO '${path}' (FORMAT parquet)`);
      connection.closeSync();
      instance.closeSync();
    }
    const bytes = readFileSync(path);
    // One table named after the file; the option opens its region's store, DuckDB binds $candidate.
    const lines = ['What-if demand = low: UPDATE sales SET qty = qty * 0.5', 'What-if demand = high: UPDATE sales SET qty = qty * 2', 'What-if option: UPDATE sales SET open = 1 WHERE region = $candidate', 'What-if objective: SELECT coalesce(sum(qty * price), 0) FROM sales WHERE open = 1'];
    const run = await decide(path, lines, {}, frame, `${format}:${path}`);
    expect([run.status, run.decision]).toEqual(['answered', 'north']);
    const exact = exactOf(run.events);
    expect(exact.error).toBeNull();
    expect(exact.scenarios.map((scenario) => [scenario.future, scenario.action, scenario.objective, scenario.status])).toEqual([
      ['demand = low', 'north', 100, 'computed'],
      ['demand = low', 'south', 120, 'computed'],
      ['demand = high', 'north', 400, 'computed'],
      ['demand = high', 'south', 480, 'computed'],
    ]);
    expect(exact.rows.map((row) => row.expected)).toEqual([expect.closeTo(2100 / 9, 9), expect.closeTo(2520 / 9, 9)]);
    expect(exact.sourceDigestAfter).toBe(exact.sourceDigestBefore);
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });
});
