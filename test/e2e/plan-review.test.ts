import { describe, expect, it } from 'vitest';
import { configureScriptedModel, openRunComposer, screenshot, useAppWithScriptedModel } from '../support/browser';
import { locatingPlan, nodeTurn, plannerTurn, promptOf, queryTurn } from '../support/plan-dag-script';
import type { ScriptStep } from '../support/scripted-openai/script';

/** Step-through of a Plan*RAG run: the analyst edits the plan graph before it runs, and the run uses the edit. */

const editedQuestion = 'Which trade nodes send trade into baltic_sea, as the analyst asks it?';
const pinned = 'krakow local value 4.777 (from the ledger)';
const rerunQuestion = 'Which trade nodes have a flow into baltic_sea, asked once more?';

const script: ScriptStep[] = [
  // "Test connection": one tiny completion, a tool-calling probe, then a JSON-schema probe.
  { content: 'ok' },
  { toolCalls: [{ name: 'probe', arguments: {} }] },
  { content: '{"status": "ok"}' },
  plannerTurn(locatingPlan),
  queryTurn('Q1.1', "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source", { expect: (request) => (promptOf(request).includes(editedQuestion) ? undefined : 'Q1.1 is asked the analyst\'s question') }),
  queryTurn('Q1.2', "SELECT trade_node, base_trading_power FROM node_country WHERE country_name = 'SWE' ORDER BY trade_node"),
  nodeTurn('Q1.1', 'answer', { answer: ['krakow', 'novgorod'], explanation: 'two sources' }),
  nodeTurn('Q1.2', 'answer', { answer: 'krakow 7.98, novgorod 11.795', explanation: 'from node_country' }),
  // Q1.3 is pinned: it makes no call, and the join reads the pinned value.
  nodeTurn('Q2.1', 'decide', { decision: 'krakow', rationale: 'krakow feeds baltic_sea and SWE holds power there.' }, { expect: (request) => (promptOf(request).includes(`the value ${pinned}?`) ? undefined : 'the join reads the pinned answer') }),
  // The re-run of Q1.1 [ext]: Q1.1 and the join again, nothing else.
  queryTurn('Q1.1', "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source", { expect: (request) => (promptOf(request).includes(rerunQuestion) ? undefined : 'the re-run asks the new question') }),
  nodeTurn('Q1.1', 'answer', { answer: ['krakow'], explanation: 'asked again' }),
  nodeTurn('Q2.1', 'decide', { decision: 'krakow', rationale: 'only krakow now.' }, { expect: (request) => (promptOf(request).includes('Of the nodes in krakow, where') && promptOf(request).includes('krakow 7.98, novgorod 11.795') ? undefined : 'the join reads the new Q1.1 and the kept Q1.2') }),
];

const { app, model } = useAppWithScriptedModel(script, { viewport: { width: 1400, height: 1100 } });

describe('a Plan*RAG plan reviewed in step-through', () => {
  it('configures the scripted model', async () => {
    await app.page.goto(app.server.url);
    await configureScriptedModel(app.page, model());
  });

  it('edits a node, refuses a cycle in place without losing the edit, pins an answer, and runs the edited plan', async () => {
    const { page } = app;
    const composer = await openRunComposer(page, { technique: 'plan-dag', stepThrough: true });
    await composer.getByTestId('start-run').click();

    const review = page.getByTestId('plan-review');
    await review.waitFor({ timeout: 20_000 });
    expect(await review.innerText()).toContain('extensions beyond the Plan*RAG paper');
    await expect.poll(() => review.getByTestId('plan-node').count()).toBe(4);

    // One state: Q1.2 put under Q1.1 stands at level 2, so the validation relabels it Q2.1 (and the join Q3.1);
    // the graph, the form and the JSON all say the new ids (the form and JSON kept Q1.2 while the graph said Q2.1).
    // (click, not check: the checkbox's group is renamed "Parents of Q2.1" by the very click.)
    await review.getByRole('group', { name: 'Parents of Q1.2' }).getByLabel('Q1.1').click();
    const idsOf = (selector: string): Promise<string[]> => review.locator(selector).evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-node-id') ?? '').sort());
    await expect.poll(() => idsOf('[data-testid="plan-node"]')).toEqual(['Q1.1', 'Q1.3', 'Q2.1', 'Q3.1']);
    await expect.poll(() => idsOf('[data-testid="plan-review-node"]')).toEqual(['Q1.1', 'Q1.3', 'Q2.1', 'Q3.1']);
    // The form is read from the plan JSON itself (parseDraft of the editor's text), so its ids are the JSON's.
    expect(await review.getByRole('group', { name: 'Parents of Q3.1' }).getByLabel('Q2.1').isChecked()).toBe(true);
    await review.getByRole('button', { name: 'Revert edit' }).click();
    await expect.poll(() => idsOf('[data-testid="plan-review-node"]')).toEqual(['Q1.1', 'Q1.2', 'Q1.3', 'Q2.1']);

    // Edit Q1.1's question by keyboard: spaces typed into the form reach it (the graph leaves the keyboard alone).
    const question = review.getByLabel('Question of Q1.1');
    await question.fill('Which trade nodes send trade into baltic_sea,');
    await question.press('End');
    await page.keyboard.type(' as the analyst asks it?');
    expect(await question.inputValue()).toBe(editedQuestion);

    // Re-wire Q1.1 under the join: a cycle, refused in place; the edit stays and can be undone.
    const parents = review.getByRole('group', { name: 'Parents of Q1.1' });
    await parents.getByLabel('Q2.1').check();
    await expect.poll(() => review.getByTestId('plan-review-error').innerText()).toBe('This plan cannot run: the plan has a cycle: Q1.1 → Q2.1 → Q1.1');
    expect(await review.getByTestId('review-approve').isDisabled()).toBe(true);
    expect(await review.locator('[data-testid="plan-review-node"][data-node-id="Q1.1"]').getAttribute('aria-invalid')).toBe('true');
    expect(await question.inputValue()).toBe(editedQuestion);
    await review.scrollIntoViewIfNeeded();
    await screenshot(page, 'plan-review-01-refused-cycle');
    await parents.getByLabel('Q2.1').uncheck();
    await expect.poll(() => review.getByTestId('plan-review-error').count()).toBe(0);

    // The plan JSON in Monaco is edited by keyboard too: a typed tail breaks the JSON, the error says so, Backspace repairs it.
    const json = review.getByTestId('plan-review-json');
    await json.locator('.view-lines').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(' and more');
    await expect.poll(() => review.getByTestId('plan-review-error').innerText()).toMatch(/^This plan cannot run: the plan is not valid JSON: /);
    expect(await review.innerText()).toContain('The form needs a JSON object with a list of nodes');
    for (let i = 0; i < ' and more'.length; i++) await page.keyboard.press('Backspace');
    await expect.poll(() => review.getByTestId('plan-review-error').count()).toBe(0);
    expect(await review.getByLabel('Question of Q1.1').inputValue()).toBe(editedQuestion);

    // Pin Q1.3's answer [ext]; the graph beside the form follows the edits.
    await review.getByLabel('Pinned answer of Q1.3').fill(pinned);
    await expect.poll(() => review.locator('[data-testid="plan-node"][data-node-id="Q1.1"]').innerText()).toContain(editedQuestion);
    await expect.poll(() => review.locator('[data-testid="plan-node"][data-node-id="Q1.3"]').innerText()).toContain(`[pinned: ${pinned}]`);
    await screenshot(page, 'plan-review-02-edited');
    await review.getByTestId('review-approve').click();

    // The two remaining roots' queries wait for review one at a time; approve them.
    for (let i = 0; i < 2; i++) {
      const panel = page.getByTestId('review-panel');
      await panel.waitFor({ timeout: 20_000 });
      // Each query names its node and the node's question, as the analyst edited it.
      if (i === 0) await expect.poll(() => panel.locator('.review-title').innerText()).toBe(`The model wants to run this query for Q1.1 (${editedQuestion}):`);
      await panel.getByTestId('review-approve').click();
      await panel.waitFor({ state: 'detached', timeout: 20_000 }).catch(() => undefined);
    }
    await expect.poll(() => page.getByTestId('run-status').innerText(), { timeout: 30_000 }).toBe('Decided');
    // Every turn so far, with its expectations; the three re-run turns are left for the next test.
    expect(model().remainingTurns()).toBe(3);

    // The notebook's graph is the plan that ran: the edited question, the pinned node labelled.
    const graph = page.getByTestId('plan-graph');
    await expect.poll(() => graph.locator('[data-node-id="Q1.1"]').innerText()).toContain(editedQuestion);
    await expect.poll(() => graph.locator('[data-node-id="Q1.3"]').innerText()).toContain('pinned');
    await graph.locator('[data-node-id="Q1.3"]').click();
    expect(await graph.getByTestId('plan-node-answer').innerText()).toContain(`pinned by the analyst [ext] ${pinned}`);
    expect(await graph.locator('.plan-graph-summary').innerText()).toContain('as the analyst edited or re-ran it [ext]');
    await graph.scrollIntoViewIfNeeded();
    await screenshot(page, 'plan-review-03-ran');
    expect(app.pageErrors).toEqual([]);
  });

  it('re-runs one node with a new question: a new run runs it and its descendant, keeps the rest, and decides again', async () => {
    const { page } = app;
    const graph = page.getByTestId('plan-graph');
    await graph.locator('[data-node-id="Q1.1"]').click();
    const rerun = graph.getByTestId('plan-rerun');
    expect(await rerun.innerText()).toContain('and its descendants (Q2.1, stale)');
    await rerun.getByLabel('New question for Q1.1').fill(rerunQuestion);
    await rerun.getByTestId('plan-rerun-start').click();

    // The stored run was step-through, so the re-run's query waits for review.
    const panel = page.getByTestId('review-panel');
    await panel.waitFor({ timeout: 20_000 });
    await panel.getByTestId('review-approve').click();
    const latest = page.getByTestId('plan-graph').last();
    await expect.poll(() => page.getByTestId('plan-graph').count(), { timeout: 20_000 }).toBe(2);
    const states = async (): Promise<Record<string, string>> =>
      Object.fromEntries(await latest.getByTestId('plan-node').evaluateAll((nodes) => nodes.map((node) => [node.getAttribute('data-node-id') ?? '', node.getAttribute('data-status') ?? '']))) as Record<string, string>;
    await expect.poll(states, { timeout: 30_000 }).toEqual({ 'Q1.1': 'answered', 'Q1.2': 'answered', 'Q1.3': 'answered', 'Q2.1': 'answered' });
    model().verify();
    expect(await latest.locator('[data-node-id="Q1.1"]').innerText()).toContain(rerunQuestion);
    // The pinned answer of the first run is kept, still labelled as pinned; a kept answer says where it comes from.
    expect(await latest.locator('[data-node-id="Q1.3"]').innerText()).toContain('pinned');
    await latest.locator('[data-node-id="Q1.2"]').click();
    expect(await latest.getByTestId('plan-node-no-query').innerText()).toMatch(/^Answer kept from run run-[\w-]+: this node was not stale in the re-run\.$/);
    await latest.scrollIntoViewIfNeeded();
    await screenshot(page, 'plan-review-04-rerun');
    expect(app.pageErrors).toEqual([]);
  });
});
