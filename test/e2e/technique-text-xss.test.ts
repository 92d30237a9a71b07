import { describe, expect, it } from 'vitest';
import { configureScriptedModel, editorText, openRunComposer, screenshot, useAppWithScriptedModel } from '../support/browser';
import { liveFindings } from '../support/live-markup';
import { nodeTurn, plannerTurn, queryTurn } from '../support/plan-dag-script';
import type { ScriptStep } from '../support/scripted-openai/script';

/**
 * Issue 26, item 8: what a technique writes, shown in the notebook, must stay text. A Plan*RAG
 * run whose planner writes hostile node questions and whose nodes answer and explain with
 * hostile text: every payload would set window.__pwned if it ran, and none may leave a live
 * element (an image, a script, an inline handler, a script link) in the page.
 */
const payload = (n: number): string => `<img src=x onerror="window.__pwned=${n}"><script>window.__pwned=${n + 100}</script><svg onload="window.__pwned=${n + 200}"></svg> [x](javascript:window.__pwned=${n + 300})`;

const hostilePlan = {
  nodes: [
    { id: 'Q1.1', question: `Which trade nodes flow into baltic_sea? ${payload(1)}`, parents: [] },
    { id: 'Q1.2', question: `What is SWE's trading power? ${payload(2)}`, parents: [] },
    { id: 'Q2.1', question: `Of <A1.1>, given <A1.2>, where should SWE place its merchant? ${payload(3)}`, parents: ['Q1.1', 'Q1.2'], compute: true },
  ],
  final: 'Q2.1',
};

const pearlProgram = `New actions:\n- None\n\n1. out1 = NEIGHBORS(DB, "baltic_sea", "source", "in") : the nodes that feed the home node ${payload(9)}`;

const script: ScriptStep[] = [
  { content: 'ok' },
  { toolCalls: [{ name: 'probe', arguments: {} }] },
  { content: '{"status": "ok"}' },
  plannerTurn(hostilePlan),
  queryTurn('Q1.1', "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source"),
  queryTurn('Q1.2', "SELECT trade_node, base_trading_power FROM node_country WHERE country_name = 'SWE' ORDER BY trade_node"),
  nodeTurn('Q1.1', 'answer', { answer: `krakow ${payload(4)}`, explanation: payload(5) }),
  nodeTurn('Q1.2', 'answer', { answer: `krakow 7.98 ${payload(6)}`, explanation: payload(7) }),
  nodeTurn('Q2.1', 'decide', { decision: 'krakow', rationale: `krakow feeds baltic_sea. ${payload(8)}` }),
  // Pearl: a program whose step description carries a payload, its step's query, the output the answer maps.
  { expectTools: ['program'], toolCalls: [{ name: 'program', arguments: { program: pearlProgram } }] },
  { expectTools: ['query'], toolCalls: [{ name: 'query', arguments: { query: "SELECT source, flow FROM flow WHERE dest = 'baltic_sea' ORDER BY source" } }] },
  { expectTools: ['output'], toolCalls: [{ name: 'output', arguments: { output: 'krakow' } }] },
];

const { app, model } = useAppWithScriptedModel(script, { viewport: { width: 1400, height: 1000 } });

describe('technique texts in the notebook stay text', () => {
  it('configures the scripted model', async () => {
    await app.page.goto(app.server.url);
    await configureScriptedModel(app.page, model());
  });

  it('a Plan*RAG run with hostile node questions, answers and explanations: nothing runs, nothing is live, the text is shown', async () => {
    const composer = await openRunComposer(app.page, { technique: 'plan-dag' });
    await composer.getByTestId('start-run').click();
    await expect.poll(() => app.page.getByTestId('run-status').innerText(), { timeout: 30_000 }).toBe('Decided');

    const graph = app.page.getByTestId('plan-graph');
    let shown = 0;
    for (const id of ['Q1.1', 'Q1.2', 'Q2.1']) {
      await graph.locator(`[data-node-id="${id}"]`).click();
      const detail = graph.getByTestId('plan-node-detail');
      await expect.poll(() => detail.innerText()).toContain('<img src=x onerror="window.__pwned=');
      shown += 1;
      const findings = await liveFindings(app.page);
      expect(findings, id).toEqual({ pwned: null, elements: [], handlers: [], links: [] });
    }
    const text = await app.page.locator('body').innerText();
    for (const n of [1, 2, 3, 4, 5, 6]) expect(text, `payload ${n}`).toContain(`window.__pwned=${n}"`);
    await graph.scrollIntoViewIfNeeded();
    await screenshot(app.page, 'technique-text-xss-plan-dag');
    console.log(`technique-text xss notebook: Plan*RAG run, 8 payloads (node questions, answers, explanations, rationale), ${shown} node details opened; window.__pwned unset, 0 live elements, 0 inline handlers, 0 script links`);
    expect(app.pageErrors).toEqual([]);
  });

  it('a Pearl run whose program carries a payload: nothing runs, nothing is live, the program is shown as text', async () => {
    const composer = await openRunComposer(app.page, { technique: 'pearl' });
    await composer.getByTestId('start-run').click();
    // The notebook already shows the Plan*RAG run's status: wait for this run's program and its step's output.
    const program = app.page.getByTestId('program-cell').last();
    await program.waitFor({ timeout: 30_000 });
    // The program is in an editor (Monaco): its lines are text, whatever they say.
    // (It wraps long lines: read them joined.)
    await expect.poll(async () => (await editorText(program)).replaceAll('\n', ''), { timeout: 30_000 }).toContain('the nodes that feed the home node <img src=x onerror="window.__pwned=9">');
    await expect.poll(() => model().remainingTurns(), { timeout: 30_000 }).toBe(0);
    model().verify();
    expect(await liveFindings(app.page)).toEqual({ pwned: null, elements: [], handlers: [], links: [] });
    await screenshot(app.page, 'technique-text-xss-pearl');
    console.log('technique-text xss notebook: Pearl run, 1 payload (the step description of its program); window.__pwned unset, 0 live elements, 0 inline handlers, 0 script links');
    expect(app.pageErrors).toEqual([]);
  });

  it('the check is not blind: a live element planted in the page is seen', async () => {
    await app.page.evaluate(() => {
      const root = (globalThis as unknown as { document: { body: { insertAdjacentHTML(where: string, html: string): void } } }).document.body;
      root.insertAdjacentHTML('beforeend', '<div id="planted"><img src="x" onerror="void 0"><a href="javascript:void 0">x</a></div>');
    });
    const findings = await liveFindings(app.page);
    expect(findings.elements.length).toBe(1);
    expect(findings.handlers).toEqual(['IMG onerror']);
    expect(findings.links).toEqual(['javascript:void 0']);
  });
});
