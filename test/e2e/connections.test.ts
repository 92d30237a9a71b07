import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { runDqaImportCommand } from '../../src-main/cli/dqa-import-command';
import { configureScriptedModel, editorText, screenshot, typeInEditor, useAppInBrowser } from '../support/browser';
import { dqaRoot } from '../support/fixtures';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer, type ScriptStep } from '../support/scripted-openai';
import { useSuiteTempDir } from '../support/temp';
import { startNeo4j, whyNeo4jUnavailable, type TestServer } from '../servers';
import { describeOrNotRun } from '../servers/not-run';

/**
 * The connection manager in browser mode: a Kùzu database made by `dwb dqa import` from a
 * Locating graph dump, and a real Neo4j server loaded the same way, each added through the
 * form, its graph schema browsed, a Cypher cell run, and a write refused.
 */

const suiteDir = useSuiteTempDir();
const dump = 'locating-1445-b1c118fa';
const kuzuName = 'Locating graph (Kùzu)';
const neo4jName = 'Locating graph (Neo4j)';
const neo4jUnavailable = whyNeo4jUnavailable();

let neo4j: TestServer | null = null;
let kuzuPath = '';
let scriptedModel: ScriptedOpenAiServer | null = null;

/** A step-through run on the Kùzu graph: the model plans, proposes one Cypher query, then answers from its rows. */
const cypherQuery = "MATCH (t:Trade_node) WHERE t.name = 'krakow' RETURN t.name AS node, t.local_value AS value";
const cypherRunScript: ScriptStep[] = [
  // "Test connection": one tiny completion, a tool-calling probe, then a JSON-schema probe.
  { content: 'ok' },
  { toolCalls: [{ name: 'probe', arguments: {} }] },
  { content: '{"status": "ok"}' },
  { expectTools: ['plan'], toolCalls: [{ name: 'plan', arguments: { steps: ['Read the local value of krakow'] } }] },
  { toolCalls: [{ name: 'query', arguments: { query: cypherQuery } }] },
  { expectToolResultContains: 'krakow', toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'krakow is the node read.' } }] },
];

/** Imports the one Locating graph dump into a target with the real importer. */
async function importLocatingGraph(target: string): Promise<void> {
  const questions = join(suiteDir(), 'questions.json');
  writeFileSync(questions, JSON.stringify([{ gdb: join(dqaRoot(), 'locating', 'db', `${dump}.cql`) }]));
  const code = await runDqaImportCommand(['--questions', questions, '--target', target], { stdout: () => undefined, stderr: () => undefined });
  if (code !== 0) throw new Error(`dwb dqa import into ${target} exited ${code}`);
}

const app = useAppInBrowser({
  viewport: { width: 1400, height: 900 },
  timeoutMs: 240_000,
  prepare: async () => {
    await importLocatingGraph(`kuzu:${join(suiteDir(), 'graphs')}`);
    kuzuPath = join(suiteDir(), 'graphs', `${dump}.lbug`);
    if (neo4jUnavailable === null) {
      neo4j = await startNeo4j();
      if (neo4j !== null) await importLocatingGraph(neo4j.uri);
    }
    return { workspace: join(suiteDir(), 'workspace') };
  },
});

beforeAll(async () => {
  await app.page.goto(app.server.url);
  await app.page.getByTestId('notebook-title').waitFor();
});

afterAll(async () => {
  await scriptedModel?.close();
  await neo4j?.stop();
}, 60_000);

const dialog = (): Locator => app.page.getByTestId('connection-dialog');
const connectionRow = (name: string): Locator => app.page.getByTestId('connection').filter({ hasText: name });

/** Types into the Monaco editor of a cell, replacing its text. */
const typeQuery = (cell: Locator, text: string): Promise<void> => typeInEditor(app.page, cell.getByTestId('query-editor'), text);

/** A new notebook with one query cell on `connection`. */
async function queryCellOn(connection: string, title: string): Promise<Locator> {
  await app.page.getByTestId('new-notebook').click();
  await expect.poll(() => app.page.getByTestId('notebook-title').textContent()).toMatch(/^Untitled/);
  await app.page.getByTestId('notebook-title').dblclick();
  await app.page.keyboard.press('ControlOrMeta+A');
  await app.page.keyboard.type(`${title}\n`);
  await app.page.getByTestId('add-query').first().click();
  const cell = app.page.getByTestId('cell').first();
  await cell.getByTestId('cell-connection').selectOption({ label: connection });
  return cell;
}

describe('a Kùzu database made by dwb dqa import', () => {
  it('is added with the form, and Test reports what it holds', async () => {
    await app.page.getByTestId('add-connection').click();
    await dialog().getByTestId('kind-kuzu').click();
    await dialog().getByLabel('Path').fill(kuzuPath);
    await dialog().getByLabel('Connection name').fill(kuzuName);
    await dialog().getByTestId('test-connection').click();
    const report = dialog().getByTestId('connection-test-report');
    await expect.poll(() => report.innerText(), { timeout: 30_000 }).toMatch(/Works.*Connected: 3 labels \(746 nodes\), 2 relationship types \(1,639 relationships\)/s);
    await screenshot(app.page, 'connections-01-kuzu-form-tested');
    await dialog().getByTestId('save-connection').click();
    await expect.poll(() => dialog().count()).toBe(0);
    await expect.poll(() => app.page.getByTestId('connection-list').innerText()).toContain(kuzuName);
  });

  it('shows its graph schema: labels, relationship types with endpoints, properties, counts', async () => {
    await connectionRow(kuzuName).getByRole('button', { name: new RegExp(kuzuName.replace(/[()]/g, '\\$&')) }).click();
    const tree = connectionRow(kuzuName).getByTestId('schema-tree');
    await expect.poll(() => tree.innerText(), { timeout: 30_000 }).toContain(':Trade_node');
    const labels = await tree.getByTestId('graph-label').allInnerTexts();
    expect(labels.map((text) => text.replace(/\s+/g, ' ').trim())).toEqual(expect.arrayContaining(['▸ :Trade_node 80', '▸ :Country 665']));
    await tree.getByRole('button', { name: /\[:NodeCountry\]/ }).click();
    await tree.getByRole('button', { name: /:Trade_node/ }).click();
    const text = await tree.innerText();
    expect(text).toContain('(:Country)-[:NodeCountry]->(:Trade_node)');
    expect(text).toMatch(/calculated_trading_power\s+DOUBLE/);
    expect(text).toMatch(/local_value\s+DOUBLE/);
    expect(text).toMatch(/\[:source\]\s+159/);
    await screenshot(app.page, 'connections-02-kuzu-graph-schema');
  });

  it('runs a Cypher cell, with labels completed from the schema, and shows the rows', async () => {
    const cell = await queryCellOn(kuzuName, 'Kùzu trade nodes');
    await cell.getByTestId('query-editor').click();
    await app.page.keyboard.type('MATCH (t:Trade_n');
    await app.page.keyboard.press('Control+Space');
    await app.page.locator('.monaco-editor .suggest-widget .monaco-list-row', { hasText: 'Trade_node' }).first().waitFor();
    await screenshot(app.page, 'connections-03-cypher-completion');
    await app.page.keyboard.press('Enter');
    await app.page.keyboard.type(') RETURN t.name AS node, t.local_value AS value ORDER BY value DESC LIMIT 5');
    await app.page.keyboard.press('Escape');
    await app.page.keyboard.press('Shift+Enter');
    await expect.poll(() => cell.getByTestId('result-summary').textContent(), { timeout: 30_000 }).toMatch(/^5 rows · /);
    const header = await cell.locator('[role=row]').first().innerText();
    expect(header).toMatch(/node[\s\S]*value/);
    // Highlighting: keywords and the label are coloured as Cypher, not plain text.
    expect(await cell.locator('.view-line span[class*="mtk"]').evaluateAll((spans) => new Set(spans.map((span) => span.className)).size)).toBeGreaterThan(2);
    await screenshot(app.page, 'connections-04-kuzu-cypher-rows');
  });

  it('shows the refusal of a write', async () => {
    const cell = app.page.getByTestId('cell').first();
    await typeQuery(cell, 'MATCH (t:Trade_node) DETACH DELETE t');
    await cell.getByTestId('run-query').click();
    const error = cell.getByTestId('query-error');
    await expect.poll(() => error.innerText(), { timeout: 30_000 }).toContain('Refused — read-only connection');
    expect(await error.innerText()).toContain('read-only');
    await screenshot(app.page, 'connections-05-kuzu-write-refused');
  });

  it('is not offered what-if experiments in a decision run, and the run composer says why', async () => {
    await app.page.getByTestId('new-run').click();
    const composer = app.page.getByTestId('run-composer');
    await composer.getByLabel('Run connection').selectOption({ label: kuzuName });
    const offer = composer.getByLabel('Offer what-if experiments');
    await expect.poll(() => offer.isDisabled()).toBe(true);
    expect(await offer.isChecked()).toBe(false);
    expect(await composer.getByTestId('whatif-offer-note').innerText()).toMatch(/^Not offered: .*this connection is a LadybugDB graph, queried in Cypher\.$/);
    await composer.getByLabel('Run connection').selectOption({ label: 'DQA Locating 1445 (demo)' });
    await expect.poll(() => offer.isEnabled()).toBe(true);
    expect(await offer.isChecked()).toBe(true);
    await composer.getByRole('button', { name: 'Close' }).click();
  });

  it('shows a query under review in step-through as Cypher: keywords and labels coloured as Cypher', async () => {
    scriptedModel = await startScriptedOpenAiServer(cypherRunScript, { models: ['scripted-model'] });
    await configureScriptedModel(app.page, scriptedModel);
    await app.page.getByTestId('new-run').click();
    const composer = app.page.getByTestId('run-composer');
    await composer.getByLabel('Decision question').fill('Which trade node should SWE look at first?');
    await composer.getByLabel('Run connection').selectOption({ label: kuzuName });
    await composer.getByLabel('Step-through').check();
    await composer.getByTestId('start-run').click();

    const review = app.page.getByTestId('review-panel');
    await expect.poll(() => review.innerText(), { timeout: 20_000 }).toContain('The model wants to run this query');
    const editor = review.getByTestId('query-editor');
    // The review docks beside the notebook, where Monaco wraps the long line (anywhere, even after
    // "t."): compare the text without its white space.
    await expect.poll(async () => (await editorText(editor)).replace(/\s+/g, '')).toBe(cypherQuery.replace(/\s+/g, ''));
    expect(await editor.getAttribute('data-mode-id')).toBe('cypher');
    // What the analyst sees: the label after the colon in the colour of a type and MATCH in the
    // colour of a keyword, neither in the plain colour of the variable t (SQL would colour them alike).
    // Monaco colours the text in a background pass after it is set: read the colours once it has.
    const colours = async (): Promise<{ match?: string; label?: string; variable?: string }> => {
      const tokens = await editor
        .locator('.view-line span span')
        .evaluateAll((spans) => spans.map((span) => ({ text: (span as { textContent: string | null }).textContent ?? '', colour: (globalThis as unknown as { getComputedStyle(target: unknown): { color: string } }).getComputedStyle(span).color })));
      const colourOf = (word: string): string | undefined => tokens.find((token) => new RegExp(`\\b${word}\\b`).test(token.text))?.colour;
      return { match: colourOf('MATCH'), label: colourOf('Trade_node'), variable: colourOf('t') };
    };
    const distinct = ({ match, label, variable }: { match?: string; label?: string; variable?: string }): boolean =>
      match !== undefined && label !== undefined && variable !== undefined && label !== variable && match !== variable && match !== label;
    await expect.poll(async () => distinct(await colours()), { timeout: 10_000 }).toBe(true);
    const { match, label, variable } = await colours();
    expect([match, label, variable].every((colour) => colour !== undefined)).toBe(true);
    expect(label).not.toBe(variable);
    expect(match).not.toBe(variable);
    expect(match).not.toBe(label);
    await screenshot(app.page, 'connections-05b-kuzu-cypher-review');

    await review.getByTestId('review-approve').click();
    await expect.poll(() => app.page.getByTestId('run-status').innerText(), { timeout: 30_000 }).toBe('Decided');
    expect(await app.page.getByTestId('decision').last().locator('.decision-value').innerText()).toBe('krakow');
    scriptedModel.verify();
  });
});

describe('the server form', () => {
  it('splits a pasted URL into fields, keeps the password apart, and Test reports the exact error', async () => {
    await app.page.getByTestId('add-connection').click();
    await dialog().getByTestId('kind-postgres').click();
    await dialog().getByLabel('Host').fill('postgresql://ann:s3cret@127.0.0.1:1/sales?sslmode=disable');
    await dialog().getByLabel('Port').click();
    expect(await dialog().getByLabel('Host').inputValue()).toBe('127.0.0.1');
    expect(await dialog().getByLabel('Port').inputValue()).toBe('1');
    expect(await dialog().getByLabel('Database').inputValue()).toBe('sales');
    expect(await dialog().getByLabel('User').inputValue()).toBe('ann');
    expect(await dialog().getByLabel('Password').inputValue()).toBe('s3cret');
    await dialog().getByTestId('test-connection').click();
    const report = dialog().getByTestId('connection-test-report');
    await expect.poll(() => report.innerText(), { timeout: 30_000 }).toContain('Failed (connection-failed) PostgreSQL: connect ECONNREFUSED 127.0.0.1:1');
    await screenshot(app.page, 'connections-12-postgres-form-failed-test');
    await dialog().getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => dialog().count()).toBe(0);
  });
});

describeOrNotRun('a real Neo4j server loaded by dwb dqa import', neo4jUnavailable, () => {
  it('is added with URL, user and password; browser mode warns that the password stays in memory', async () => {
    await app.page.getByTestId('add-connection').click();
    await dialog().getByTestId('kind-neo4j').click();
    await dialog().getByLabel('URL').fill(neo4j?.uri ?? '');
    await dialog().getByLabel('User').fill(neo4j?.username ?? '');
    await dialog().getByLabel('Password').fill(neo4j?.password ?? '');
    await dialog().getByLabel('Connection name').fill(neo4jName);
    expect(await dialog().getByTestId('secrets-warning').innerText()).toContain('kept in memory only');
    await dialog().getByTestId('test-connection').click();
    await expect.poll(() => dialog().getByTestId('connection-test-report').innerText(), { timeout: 30_000 }).toMatch(/Works.*Connected: 3 labels \(746 nodes\)/s);
    await screenshot(app.page, 'connections-06-neo4j-form-tested');
    await dialog().getByTestId('save-connection').click();
    await expect.poll(() => app.page.getByTestId('connection-list').innerText()).toContain(neo4jName);
  });

  it('shows its graph schema', async () => {
    await connectionRow(neo4jName).getByRole('button', { name: new RegExp(neo4jName.replace(/[()]/g, '\\$&')) }).click();
    const tree = connectionRow(neo4jName).getByTestId('schema-tree');
    await expect.poll(() => tree.innerText(), { timeout: 30_000 }).toContain(':Country');
    await tree.getByRole('button', { name: /\[:source\]/ }).click();
    const text = await tree.innerText();
    expect(text).toMatch(/:Trade_node\s+80/);
    expect(text).toContain('(:Trade_node)-[:source]->(:Trade_node)');
    expect(text).toMatch(/flow\s+Double/);
    await screenshot(app.page, 'connections-07-neo4j-graph-schema');
  });

  it('runs a Cypher cell and shows the rows; a write is refused with its message', async () => {
    const cell = await queryCellOn(neo4jName, 'Neo4j home nodes');
    await typeQuery(
      cell,
      `MATCH (c:Country {_dump: '${dump}'})-[nc:NodeCountry]->(t:Trade_node) WHERE t.name = c.home_node ` +
        'RETURN c.name AS country, t.name AS home, nc.calculated_trading_power AS power ORDER BY power DESC LIMIT 3',
    );
    await cell.getByTestId('run-query').click();
    await expect.poll(() => cell.getByTestId('result-summary').textContent(), { timeout: 30_000 }).toMatch(/^3 rows · /);
    await screenshot(app.page, 'connections-08-neo4j-cypher-rows');
    await typeQuery(cell, "MATCH (c:Country {name: 'SWE'}) SET c.development = 0");
    await cell.getByTestId('run-query').click();
    const error = cell.getByTestId('query-error');
    await expect.poll(() => error.innerText(), { timeout: 30_000 }).toContain('Refused — read-only connection');
    expect(await error.innerText()).toContain("only read-only queries ('r') run");
    await screenshot(app.page, 'connections-09-neo4j-write-refused');
  });
});

describe('editing and removing connections', () => {
  it('renames a connection in the edit form, then removes it after confirmation', async () => {
    await connectionRow(kuzuName).hover();
    await app.page.getByRole('button', { name: `Edit ${kuzuName}` }).click();
    expect(await dialog().getByLabel('Path').inputValue()).toBe(kuzuPath);
    await dialog().getByLabel('Connection name').fill('Kùzu, renamed');
    await screenshot(app.page, 'connections-10-edit-form');
    await dialog().getByTestId('save-connection').click();
    await expect.poll(() => app.page.getByTestId('connection-list').innerText()).toContain('Kùzu, renamed');
    await connectionRow('Kùzu, renamed').hover();
    await app.page.getByRole('button', { name: 'Remove Kùzu, renamed' }).click();
    await screenshot(app.page, 'connections-11-remove-confirmation');
    await connectionRow('Kùzu, renamed').getByRole('button', { name: 'Remove', exact: true }).click();
    await expect.poll(() => app.page.getByTestId('connection-list').innerText()).not.toContain('Kùzu, renamed');
    expect(app.pageErrors).toEqual([]);
  });
});
