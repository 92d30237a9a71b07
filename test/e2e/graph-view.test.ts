import { join } from 'node:path';

import neo4j from 'neo4j-driver';
import type { Locator, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';

import { seriousViolations } from '../support/axe';
import { contrastRatio, shownColours } from '../support/contrast';
import { editorText, screenshot, useAppInBrowser } from '../support/browser';
import { connectSocket } from '../support/serve';
import { useSuiteTempDir } from '../support/temp';
import { startNeo4j, whyNeo4jUnavailable, type TestServer } from '../servers';
import { describeOrNotRun } from '../servers/not-run';
import { runLadybugStatements } from '../integration/connectors/fixture-loaders';

/**
 * The graph view of Cypher results, in Chromium against a real Kùzu file and a real Neo4j
 * server holding the same small graph: cities joined by roads, a port shipping to Lisbon, and
 * 350 stops (more than the view draws). A cell's result switches to a graph whose nodes and
 * arrows are counted, captioned and inspected; Expand neighbours adds a visible read-only
 * query cell whose nodes join the graph; the choice stays after switching notebooks and reloading.
 */
const suiteDir = useSuiteTempDir();
const neo4jUnavailable = whyNeo4jUnavailable();
let neo4jServer: TestServer | null = null;
const stops = 350;

const graphStatements = [
  "CREATE (:City {name: 'Lisbon', population: 545000}), (:City {name: 'Porto', population: 232000}), (:City {name: 'Faro', population: 67000}), (:City {name: 'Coimbra', population: 106000})",
  "CREATE (:Port {code: 'LIS', depth: 14.5})",
  "MATCH (a:City {name: 'Lisbon'}), (b:City {name: 'Porto'}) CREATE (a)-[:ROAD {km: 313}]->(b)",
  "MATCH (a:City {name: 'Lisbon'}), (b:City {name: 'Faro'}) CREATE (a)-[:ROAD {km: 278}]->(b)",
  "MATCH (a:City {name: 'Porto'}), (b:City {name: 'Coimbra'}) CREATE (a)-[:ROAD {km: 121}]->(b)",
  "MATCH (p:Port {code: 'LIS'}), (c:City {name: 'Lisbon'}) CREATE (p)-[:SHIPS {tons: 9000}]->(c)",
  `UNWIND range(1, ${stops}) AS i CREATE (:Stop {name: 'Stop ' + CAST(i AS STRING)})`,
];

const app = useAppInBrowser({
  viewport: { width: 1440, height: 900 },
  timeoutMs: 180_000,
  prepare: async () => {
    runLadybugStatements(join(suiteDir(), 'ports.kuzu'), [
      'CREATE NODE TABLE City(name STRING PRIMARY KEY, population INT64)',
      'CREATE NODE TABLE Port(code STRING PRIMARY KEY, depth DOUBLE)',
      'CREATE NODE TABLE Stop(name STRING PRIMARY KEY)',
      'CREATE REL TABLE ROAD(FROM City TO City, km INT64)',
      'CREATE REL TABLE SHIPS(FROM Port TO City, tons INT64)',
      ...graphStatements,
    ]);
    if (neo4jUnavailable === null) {
      neo4jServer = await startNeo4j();
      if (neo4jServer !== null) {
        const driver = neo4j.driver(neo4jServer.uri, neo4j.auth.basic(neo4jServer.username, neo4jServer.password));
        try {
          // Neo4j spells the cast toString(i); the rest is the same Cypher.
          for (const statement of graphStatements) await driver.executeQuery(statement.replace('CAST(i AS STRING)', 'toString(i)'));
        } finally {
          await driver.close();
        }
      }
    }
  },
});

afterAll(async () => {
  await neo4jServer?.stop();
});

const roadsFromLisbon = "MATCH (a:City {name: 'Lisbon'})-[r:ROAD]->(b:City) RETURN a, r, b ORDER BY b.name";

/** A notebook with one query cell on the connection holding `source`, opened in the page. */
async function notebookWithQuery(page: Page, title: string, connectionId: string, source: string): Promise<Locator> {
  const api = await connectSocket(app.server);
  const notebook = await api.invoke('notebooks/create', { title });
  await api.invoke('cells/insert', { notebookId: notebook.id, kind: 'query', source, connectionId });
  await page.goto(app.server.url);
  await page.getByTestId('notebook-list').getByRole('button', { name: title }).click();
  await expect.poll(() => page.getByTestId('notebook-title').textContent()).toBe(title);
  return page.getByTestId('cell').first();
}

async function runCell(cell: Locator): Promise<void> {
  await cell.getByTestId('run-query').click();
  await expect.poll(() => cell.getByTestId('result-summary').or(cell.getByTestId('result-graph-summary')).first().isVisible(), { timeout: 30_000 }).toBe(true);
}

const graphOf = (cell: Locator) => cell.getByTestId('result-graph').first();
const nodeCount = (cell: Locator) => graphOf(cell).getByTestId('graph-node').count();
const edgeCount = (cell: Locator) => graphOf(cell).locator('.react-flow__edge').count();
const captions = async (cell: Locator) => (await graphOf(cell).getByTestId('graph-node-caption').allInnerTexts()).sort();

async function auditBothThemes(page: Page, name: string): Promise<void> {
  for (const theme of ['light', 'dark'] as const) {
    await page.getByTestId('theme-choice').selectOption(theme);
    await expect.poll(() => page.evaluate(() => (globalThis as unknown as { document: { documentElement: { dataset: Record<string, string> } } }).document.documentElement.dataset['theme'])).toBe(theme);
    expect(await seriousViolations(page), `${name} in the ${theme} theme`).toEqual([]);
    // Captions on every label's tint, and the SVG text of the arrows (axe does not measure SVG text).
    const graph = graphOf(page.getByTestId('cell').first());
    for (const caption of await graph.getByTestId('graph-node-caption').all()) {
      const shown = await shownColours(caption);
      expect(shown.ratio, `caption ${await caption.innerText()} in the ${theme} theme: ${shown.color} on ${shown.background}`).toBeGreaterThanOrEqual(4.5);
    }
    const arrowText = await graph.locator('.react-flow__edge-textwrapper').first().evaluate((wrapper) => {
      const fill = (selector: string) => {
        const element = (wrapper as unknown as { querySelector(selector: string): unknown }).querySelector(selector);
        return (globalThis as unknown as { getComputedStyle(node: unknown): { fill: string } }).getComputedStyle(element).fill;
      };
      return { text: fill('.react-flow__edge-text'), background: fill('.react-flow__edge-textbg') };
    });
    expect(contrastRatio(arrowText.text, arrowText.background), `arrow label in the ${theme} theme`).toBeGreaterThanOrEqual(4.5);
    await screenshot(page, `${name}-${theme}`);
  }
  await page.getByTestId('theme-choice').selectOption('light');
}

/** The whole journey on one engine, whose name is in its notebooks' titles and screenshots. */
async function journey(engine: 'kuzu' | 'neo4j', connectionId: string, expandedSource: RegExp): Promise<void> {
  // axe needs its script in the page, which the app's policy rightly refuses unless bypassed.
  const page = await app.browser.newPage({ bypassCSP: true, viewport: { width: 1440, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  try {
    const cell = await notebookWithQuery(page, `Roads (${engine})`, connectionId, roadsFromLisbon);
    await runCell(cell);
    // The table first (as before), with each node's JSON readable in its cell; the switch offers the graph.
    expect(await cell.getByTestId('result-summary').innerText()).toMatch(/^2 rows/);
    expect(await cell.getByTestId('result-view-table').getAttribute('aria-pressed')).toBe('true');
    await cell.getByTestId('result-view-graph').click();

    await expect.poll(() => nodeCount(cell)).toBe(3);
    expect(await edgeCount(cell)).toBe(2);
    expect(await captions(cell)).toEqual(['Faro', 'Lisbon', 'Porto']);
    expect(await graphOf(cell).getByTestId('result-graph-summary').innerText()).toBe('3 nodes · 2 relationships');
    expect(await graphOf(cell).locator('.react-flow__edge-text').allTextContents()).toEqual(['ROAD', 'ROAD']);
    expect(await graphOf(cell).getByTestId('graph-legend-label').allInnerTexts()).toEqual(['City']);

    // Captions from a chosen property.
    await graphOf(cell).getByTestId('graph-caption').selectOption('population');
    await expect.poll(() => captions(cell)).toEqual(['232000', '545000', '67000']);
    await graphOf(cell).getByTestId('graph-caption').selectOption('');
    await expect.poll(() => captions(cell)).toEqual(['Faro', 'Lisbon', 'Porto']);

    // The inspector shows the clicked node's properties.
    await graphOf(cell).locator('[data-testid=graph-node]', { hasText: 'Porto' }).click();
    const inspector = graphOf(cell).getByTestId('graph-inspector');
    await expect.poll(() => inspector.getByTestId('graph-inspector-title').innerText()).toBe('City');
    expect(await inspector.getByTestId('graph-properties').innerText()).toMatch(/name\s+Porto\s+population\s+232000/);
    await screenshot(page, `graph-view-${engine}-01-inspector`);

    // From the keyboard: one tab stop, the arrow keys walk the nodes into the inspector.
    await graphOf(cell).getByTestId('result-graph-canvas').focus();
    const shownName = async () => (await inspector.getByTestId('graph-properties').innerText()).match(/name\s+(\S+)/)?.[1];
    const before = await shownName();
    await page.keyboard.press('ArrowRight');
    await expect.poll(shownName).not.toBe(before);
    const names = new Set<string | undefined>([await shownName()]);
    for (let step = 0; step < 2; step += 1) {
      await page.keyboard.press('ArrowRight');
      names.add(await shownName());
    }
    expect([...names].sort()).toEqual(['Faro', 'Lisbon', 'Porto']);
    await graphOf(cell).locator('[data-testid=graph-node]', { hasText: 'Porto' }).click();
    await expect.poll(shownName).toBe('Porto');

    // Expand neighbours: a new read-only query cell below, visible, whose nodes join this graph.
    await inspector.getByTestId('graph-expand').click();
    const cells = page.getByTestId('cell');
    await expect.poll(() => cells.count()).toBe(2);
    const expansion = cells.nth(1);
    await expect.poll(() => editorText(expansion.getByTestId('query-editor'))).toMatch(expandedSource);
    await expect.poll(() => nodeCount(expansion), { timeout: 30_000 }).toBe(3);
    expect(await captions(expansion)).toEqual(['Coimbra', 'Lisbon', 'Porto']);
    await expect.poll(() => nodeCount(cell)).toBe(4);
    expect(await edgeCount(cell)).toBe(3);
    expect(await captions(cell)).toEqual(['Coimbra', 'Faro', 'Lisbon', 'Porto']);
    // A second expansion (of Lisbon) brings the port, in a colour of its own.
    await graphOf(cell).locator('[data-testid=graph-node]', { hasText: 'Lisbon' }).click();
    await inspector.getByTestId('graph-expand').click();
    await expect.poll(() => cells.count()).toBe(3);
    await expect.poll(() => nodeCount(cell), { timeout: 30_000 }).toBe(5);
    expect(await edgeCount(cell)).toBe(4);
    expect(await graphOf(cell).getByTestId('graph-legend-label').allInnerTexts()).toEqual(['City', 'Port']);
    const portColour = await graphOf(cell).locator('[data-testid=graph-node][data-label=Port]').getAttribute('class');
    const cityColour = await graphOf(cell).locator('[data-testid=graph-node]', { hasText: 'Porto' }).getAttribute('class');
    expect(portColour).toContain('graph-colour-1');
    expect(cityColour).toContain('graph-colour-0');
    // Below the first expansion, in the order they were asked.
    expect(await editorText(cells.nth(2).getByTestId('query-editor'))).not.toBe(await editorText(cells.nth(1).getByTestId('query-editor')));
    await screenshot(page, `graph-view-${engine}-02-expanded`);

    // A large result: the view draws up to its cap and says so; the table keeps every row.
    const stopsCell = await notebookWithQuery(page, `Stops (${engine})`, connectionId, 'MATCH (s:Stop) RETURN s');
    await runCell(stopsCell);
    await stopsCell.getByTestId('result-view-graph').click();
    await expect.poll(() => graphOf(stopsCell).getByTestId('result-graph-cap').innerText()).toBe(
      `Showing 300 of ${stops} nodes and 0 of 0 relationships, so the view stays quick; the table has every row.`,
    );
    expect(await nodeCount(stopsCell)).toBe(300);
    await screenshot(page, `graph-view-${engine}-03-capped`);

    // The choice is kept with each cell: after switching notebooks and after a reload.
    await page.getByTestId('notebook-list').getByRole('button', { name: `Roads (${engine})` }).click();
    await expect.poll(() => nodeCount(page.getByTestId('cell').first())).toBe(5);
    await page.reload();
    await expect.poll(() => page.getByTestId('notebook-title').textContent()).toBe(`Roads (${engine})`);
    const reloaded = page.getByTestId('cell').first();
    await expect.poll(() => nodeCount(reloaded)).toBe(5);
    expect(await reloaded.getByTestId('result-view-graph').getAttribute('aria-pressed')).toBe('true');
    await reloaded.getByTestId('result-view-table').click();
    await expect.poll(() => reloaded.getByTestId('result-summary').innerText()).toMatch(/^2 rows/);
    await expect.poll(() => reloaded.getByTestId('save-state').innerText()).toBe('Saved');
    await page.reload();
    await expect.poll(() => page.getByTestId('cell').first().getByTestId('result-summary').isVisible()).toBe(true);
    expect(await page.getByTestId('cell').first().getByTestId('result-graph').count()).toBe(0);
    await page.getByTestId('cell').first().getByTestId('result-view-graph').click();
    await graphOf(page.getByTestId('cell').first()).locator('[data-testid=graph-node]', { hasText: 'Lisbon' }).click();

    await auditBothThemes(page, `graph-view-${engine}-04-audit`);
    expect(errors).toEqual([]);
  } finally {
    await page.close();
  }
}

describe('the graph view on a Kùzu file', () => {
  it('draws nodes and relationships, inspects, expands, caps and keeps the choice', async () => {
    const api = await connectSocket(app.server);
    const connection = await api.invoke('connections/add', { name: 'Ports (Kùzu)', target: { engine: 'kuzu', path: join(suiteDir(), 'ports.kuzu') } });
    await journey('kuzu', connection.id, /WHERE id\(n\) = internal_id\(\d+, \d+\)/);
  });
});

describeOrNotRun('the graph view on a real Neo4j server', neo4jUnavailable, () => {
  it('draws nodes and relationships, inspects, expands, caps and keeps the choice', async () => {
    const api = await connectSocket(app.server);
    const server = neo4jServer;
    if (server === null) throw new Error('Neo4j did not start');
    const connection = await api.invoke('connections/add', {
      name: 'Ports (Neo4j)',
      target: { engine: 'neo4j', url: server.uri, username: server.username },
      password: server.password,
    });
    await journey('neo4j', connection.id, /WHERE elementId\(n\) = '[^']+'/);
    expect(app.pageErrors).toEqual([]);
  });
});
