/**
 * A step-through review leaves the notebook visible: at 1280×720 the review panel used to cover
 * the whole viewport (it sat in the sticky run bar). It now docks at the right, resizable and
 * remembered, and the cell under review is scrolled into sight beside it, not covered.
 */
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { configureScriptedModel, openRunComposer, screenshot, useAppWithScriptedModel } from '../support/browser';
import type { ScriptStep } from '../support/scripted-openai/script';

const script: ScriptStep[] = [
  // "Test connection": one tiny completion, a tool-calling probe, then a JSON-schema probe.
  { content: 'ok' },
  { toolCalls: [{ name: 'probe', arguments: {} }] },
  { content: '{"status": "ok"}' },
  { expectTools: ['plan'], toolCalls: [{ name: 'plan', arguments: { steps: ['Read SWE trading power per node', 'Compare the nodes upstream of baltic_sea'] } }] },
  { content: 'Start with SWE power.', toolCalls: [{ name: 'query', arguments: { query: "SELECT trade_node, base_trading_power FROM node_country WHERE country_name = 'SWE'" } }] },
];

const { app, model } = useAppWithScriptedModel(script, { viewport: { width: 1280, height: 720 } });

/** Whether the element is in the viewport and the topmost thing at its centre (not under the dock or the run bar). */
async function visibleAtCentre(page: Page, element: Locator): Promise<{ inViewport: boolean; uncovered: boolean }> {
  const box = await element.boundingBox();
  if (!box) return { inViewport: false, uncovered: false };
  const viewport = page.viewportSize() ?? { width: 0, height: 0 };
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  const inViewport = x > 0 && y > 0 && x < viewport.width && y < viewport.height;
  const uncovered = await element.evaluate((node, [px, py]) => {
    const top = (node.ownerDocument as unknown as { elementFromPoint(x: number, y: number): unknown }).elementFromPoint(px ?? 0, py ?? 0);
    return top !== null && (node as unknown as { contains(other: unknown): boolean }).contains(top);
  }, [x, y]);
  return { inViewport, uncovered };
}

describe('the step-through review, docked beside the notebook', () => {
  it('sets up the model', async () => {
    await app.page.goto(app.server.url);
    await configureScriptedModel(app.page, model());
  });

  it('keeps the cell under review in sight at 1280×720, beside a resizable, remembered panel', async () => {
    const composer = await openRunComposer(app.page, { stepThrough: true });
    await composer.getByTestId('start-run').click();
    const dock = app.page.getByTestId('review-dock');
    await dock.getByTestId('review-panel').waitFor();
    await expect.poll(() => dock.innerText()).toContain('The model wants to run this query');
    // The review is no longer inside the run bar.
    expect(await app.page.getByTestId('run-bar').getByTestId('review-panel').count()).toBe(0);

    // The sidebar counts the cells the run has written so far (it said the count from before the run).
    const cellCount = await app.page.getByTestId('cell').count();
    await expect.poll(() => app.page.getByTestId('notebook-list').locator('li.selected .list-meta').innerText()).toBe(String(cellCount));
    expect(await app.page.locator('[data-cell-kind="plan"]').count()).toBeGreaterThan(0);

    const underReview = app.page.getByTestId('cell-under-review');
    // The run's newest cell, the thought before the query it proposes.
    expect(await underReview.getByTestId('cell').getAttribute('data-cell-kind')).toBe('thought');
    await expect.poll(() => visibleAtCentre(app.page, underReview)).toEqual({ inViewport: true, uncovered: true });
    const dockBox = await dock.boundingBox();
    const cellBox = await underReview.boundingBox();
    expect(dockBox && cellBox && cellBox.x + cellBox.width <= dockBox.x).toBe(true);
    expect(dockBox?.width).toBe(400);
    // The plan graph in the narrower column fits its canvas: every node inside it, none cut at the edge.
    const plan = app.page.locator('[data-cell-kind="plan"]').last();
    await expect
      .poll(async () => {
        const canvas = await plan.locator('.plan-graph-canvas').boundingBox();
        const nodes = await plan.getByTestId('plan-node').evaluateAll((boxes) => boxes.map((node) => node.getBoundingClientRect()).map((box) => ({ x: box.x, y: box.y, right: box.right, bottom: box.bottom })));
        const outside = nodes.filter((node) => !canvas || node.x < canvas.x || node.y < canvas.y || node.right > canvas.x + canvas.width || node.bottom > canvas.y + canvas.height);
        return { nodes: nodes.length, outside: outside.map((node) => `${node.x},${node.y}-${node.right},${node.bottom} in ${JSON.stringify(canvas)}`) };
      })
      .toEqual({ nodes: 2, outside: [] });
    await screenshot(app.page, 'review-dock-1280-light');

    // ← widens the dock by a step (Shift: four), and the width is remembered.
    await dock.getByTestId('review-dock-resizer').focus();
    await app.page.keyboard.press('ArrowLeft');
    await app.page.keyboard.press('Shift+ArrowLeft');
    await expect.poll(async () => (await dock.boundingBox())?.width).toBe(480);
    expect(await app.page.evaluate(() => (globalThis as unknown as { localStorage: { getItem(key: string): string | null } }).localStorage.getItem('dwb:review-width'))).toBe('480');
    await expect.poll(() => visibleAtCentre(app.page, underReview)).toEqual({ inViewport: true, uncovered: true });

    await app.page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(app.page, 'review-dock-1280-dark');
    await app.page.setViewportSize({ width: 1440, height: 900 });
    await expect.poll(() => visibleAtCentre(app.page, underReview)).toEqual({ inViewport: true, uncovered: true });
    await screenshot(app.page, 'review-dock-1440-dark');
    await app.page.emulateMedia({ colorScheme: 'light' });
    await screenshot(app.page, 'review-dock-1440-light');
    await app.page.setViewportSize({ width: 1280, height: 720 });

    // A new page (a reload) opens the dock at the remembered width.
    await app.page.reload();
    await app.page.getByTestId('review-dock').waitFor();
    await expect.poll(async () => (await app.page.getByTestId('review-dock').boundingBox())?.width).toBe(480);
    await expect.poll(() => visibleAtCentre(app.page, app.page.getByTestId('cell-under-review'))).toEqual({ inViewport: true, uncovered: true });

    await app.page.getByTestId('review-stop').click();
    await expect.poll(() => app.page.getByTestId('review-dock').count()).toBe(0);
    expect(app.pageErrors).toEqual([]);
  });
});
