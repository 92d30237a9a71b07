import { describe, expect, it } from 'vitest';
import { seriousViolations } from '../support/axe';
import { screenshot, useAppInBrowser } from '../support/browser';

/** The sidebar's width: dragged with the mouse or set with the keys, and remembered. */
const app = useAppInBrowser({ viewport: { width: 1440, height: 900 } });
const page = () => app.page;
const sidebarWidth = async (): Promise<number> => Math.round((await page().locator('aside.sidebar').boundingBox())?.width ?? 0);

describe('the resizable sidebar', () => {
  it('is dragged wider, then set with the arrow keys, Home and End, and keeps its width after a reload', async () => {
    await page().goto(app.server.url);
    await page().getByTestId('notebook-title').waitFor();
    expect(await sidebarWidth()).toBe(300);
    const handle = page().getByTestId('sidebar-resizer');
    const box = await handle.boundingBox();
    if (!box) throw new Error('the resize handle is not shown');
    await page().mouse.move(box.x + box.width / 2, box.y + 300);
    await page().mouse.down();
    await page().mouse.move(380, box.y + 300, { steps: 5 });
    await page().mouse.move(420, box.y + 300, { steps: 5 });
    await page().mouse.up();
    expect(await sidebarWidth()).toBe(420);
    await screenshot(page(), 'sidebar-01-dragged');

    await handle.focus();
    await page().keyboard.press('ArrowRight');
    await page().keyboard.press('ArrowRight');
    expect(await sidebarWidth()).toBe(452);
    await page().keyboard.press('Shift+ArrowLeft');
    expect(await sidebarWidth()).toBe(388);
    expect(await handle.getAttribute('aria-valuenow')).toBe('388');
    await page().keyboard.press('Home');
    expect(await sidebarWidth()).toBe(200);
    await page().keyboard.press('End');
    expect(await sidebarWidth()).toBe(560);
    await page().keyboard.press('ArrowLeft');
    expect(await sidebarWidth()).toBe(544);

    await page().reload();
    await page().getByTestId('notebook-title').waitFor();
    expect(await sidebarWidth()).toBe(544);
    // A double click goes back to the first width.
    await handle.dblclick();
    expect(await sidebarWidth()).toBe(300);
    expect(app.pageErrors).toEqual([]);
  });

  it('passes the accessibility audit with the handle focused', async () => {
    const audited = await app.browser.newPage({ bypassCSP: true, viewport: { width: 1440, height: 900 } });
    try {
      await audited.goto(app.server.url);
      await audited.getByTestId('notebook-title').waitFor();
      await audited.getByTestId('sidebar-resizer').focus();
      expect(await seriousViolations(audited)).toEqual([]);
    } finally {
      await audited.close();
    }
  });
});
