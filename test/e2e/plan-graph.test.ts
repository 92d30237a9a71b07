import { afterAll, describe, expect, it } from 'vitest';
import { configureScriptedModel, openRunComposer, screenshot, useAppWithScriptedModel } from '../support/browser';
import { locatingPlan, nodeTurn, plannerTurn, queryTurn } from '../support/plan-dag-script';
import type { ScriptStep } from '../support/scripted-openai/script';

// The join's decision waits until the test has seen the graph mid-run.
let releaseJoin: () => void = () => undefined;
const joinReleased = new Promise<void>((resolve) => {
  releaseJoin = resolve;
});


const script: ScriptStep[] = [
  // "Test connection": one tiny completion, a tool-calling probe, then a JSON-schema probe.
  { content: 'ok' },
  { toolCalls: [{ name: 'probe', arguments: {} }] },
  { content: '{"status": "ok"}' },
  plannerTurn(locatingPlan),
  queryTurn('Q1.1', "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source"),
  queryTurn('Q1.2', "SELECT trade_node, base_trading_power FROM node_country WHERE country_name = 'SWE' ORDER BY trade_node"),
  queryTurn('Q1.3', "SELECT trade_node, local_value FROM trade_node WHERE trade_node = 'krakow'"),
  nodeTurn('Q1.1', 'answer', { answer: ['krakow', 'novgorod'], explanation: 'two sources' }),
  nodeTurn('Q1.2', 'answer', { answer: 'krakow 7.98, novgorod 11.795', explanation: 'from node_country' }),
  nodeTurn('Q1.3', 'answer', { answer: 'krakow local value 4.777', explanation: 'one row' }),
  nodeTurn('Q2.1', 'decide', { decision: 'krakow', rationale: 'krakow feeds baltic_sea and SWE holds power there.' }, { holdUntil: joinReleased }),
];

const { app, model } = useAppWithScriptedModel(script, { viewport: { width: 1400, height: 1000 } });
afterAll(() => {
  releaseJoin();
});

const statuses = async (): Promise<Record<string, string>> =>
  Object.fromEntries(
    await app.page.getByTestId('plan-node').evaluateAll((nodes) => nodes.map((node) => [node.getAttribute('data-node-id') ?? '', node.getAttribute('data-status') ?? ''])),
  ) as Record<string, string>;

describe('a Plan*RAG run drawn as a graph', () => {
  it('configures the scripted model', async () => {
    await app.page.goto(app.server.url);
    await configureScriptedModel(app.page, model());
  });

  it('shows the plan graph with live node states while the run goes on, then the finished graph', async () => {
    const composer = await openRunComposer(app.page, { technique: 'plan-dag' });
    await composer.getByTestId('start-run').click();

    const graph = app.page.getByTestId('plan-graph');
    await graph.waitFor({ timeout: 20_000 });
    // The roots answered; the join is in flight (its model call is held).
    await expect.poll(statuses, { timeout: 20_000 }).toEqual({ 'Q1.1': 'answered', 'Q1.2': 'answered', 'Q1.3': 'answered', 'Q2.1': 'running' });
    expect(await graph.locator('.plan-graph-summary').innerText()).toMatch(/2 levels · widths 3, 1 · critical path Q1\.\d → Q2\.1/);
    // Parallel width: the three roots share one column, the join stands right of them.
    const boxes = await graph.getByTestId('plan-node').evaluateAll((nodes) => nodes.map((node) => node.getBoundingClientRect()).map((box) => ({ x: box.x, y: box.y, w: box.width, h: box.height })));
    const [a, b, c, join] = boxes;
    expect(a?.x).toBeCloseTo(b?.x ?? 0, 0);
    expect(b?.x).toBeCloseTo(c?.x ?? 0, 0);
    expect(join?.x ?? 0).toBeGreaterThan((a?.x ?? 0) + (a?.w ?? 0));
    for (const [i, first] of boxes.entries()) {
      for (const second of boxes.slice(i + 1)) {
        const apart = first.x + first.w <= second.x || second.x + second.w <= first.x || first.y + first.h <= second.y || second.y + second.h <= first.y;
        expect(apart).toBe(true);
      }
    }
    // The graph fits its canvas: no node is cut at the edge (the rightmost used to read "faile").
    const canvas = await graph.locator('.plan-graph-canvas').boundingBox();
    for (const box of boxes) {
      expect(canvas && box.x >= canvas.x && box.y >= canvas.y && box.x + box.w <= canvas.x + canvas.width && box.y + box.h <= canvas.y + canvas.height).toBe(true);
    }
    await graph.scrollIntoViewIfNeeded();
    await screenshot(app.page, 'plan-graph-01-running');

    releaseJoin();
    await expect.poll(() => app.page.getByTestId('run-status').innerText(), { timeout: 20_000 }).toBe('Decided');
    await expect.poll(statuses).toEqual({ 'Q1.1': 'answered', 'Q1.2': 'answered', 'Q1.3': 'answered', 'Q2.1': 'answered' });
    model().verify();
    expect(await graph.getByTestId('plan-json').innerText()).toContain('"dependsOn": [\n        "Q1.1",');
  });

  it('shows a node’s question, query, rows, answer, tokens and latency on click', async () => {
    const graph = app.page.getByTestId('plan-graph');
    await graph.locator('[data-node-id="Q1.1"]').click();
    const detail = graph.getByTestId('plan-node-detail');
    await detail.waitFor();
    const text = await detail.innerText();
    expect(text).toContain('Which trade nodes have a flow into baltic_sea?');
    expect(text).toContain("SELECT source FROM flow WHERE dest = 'baltic_sea'");
    expect(await detail.getByTestId('plan-node-answer').innerText()).toContain('krakow');
    expect(text).toMatch(/Tokens\s+\d+ prompt · \d+ completion/);
    expect(text).toMatch(/Latency\s+\d+ ms/);
    await expect.poll(() => detail.getByTestId('result-summary').innerText()).toMatch(/rows?/);
    expect(await graph.locator('[data-node-id="Q1.1"]').getAttribute('title')).toContain('Answer: krakow, novgorod');
    await graph.scrollIntoViewIfNeeded();
    await screenshot(app.page, 'plan-graph-02-node');
    expect(app.pageErrors).toEqual([]);
  });
});
