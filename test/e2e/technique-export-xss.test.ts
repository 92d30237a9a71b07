import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { htmlVectors, exportsOf } from '../security/technique-text-exports';
import { launchChromium } from '../support/browser';
import { liveFindings } from '../support/live-markup';
import { useSuiteTempDir } from '../support/temp';

/**
 * Issue 26, item 8, the HTML export (also the page the PDF is printed from) opened in Chromium:
 * each HTML-context payload in every text a technique writes (test/security/technique-text-exports.ts)
 * must leave no live element, no handler and no script link in the rendered page, and nothing
 * may run. The static reading of all payloads is test/security/technique-text-xss.test.ts.
 */
const dir = useSuiteTempDir();
let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe('the HTML export of a run with hostile technique texts, in Chromium', () => {
  it(`renders each of ${htmlVectors.length} payloads as text: nothing runs, nothing is live`, async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const findings: string[] = [];
    try {
      for (const [index, vector] of htmlVectors.entries()) {
        const payload = vector.replaceAll('alert(1)', 'window.__pwned=1');
        const path = join(dir(), `report-${index}.html`);
        writeFileSync(path, exportsOf(payload).html);
        await page.goto(`file://${path}`);
        const live = await liveFindings(page);
        if (live.pwned !== null || live.elements.length > 0 || live.handlers.length > 0 || live.links.length > 0) findings.push(`${JSON.stringify(payload)} → ${JSON.stringify(live)}`);
        // The payload is on the page as text (in the program, the factors, the node questions …).
        expect(await page.locator('body').innerText(), payload).toContain(payload.slice(0, 12));
      }
    } finally {
      await page.close();
    }
    console.log(`technique-text xss export in Chromium: ${htmlVectors.length} HTML reports, ${findings.length} with anything live, page errors ${errors.length}`);
    expect(findings).toEqual([]);
    expect(errors).toEqual([]);
  });
});
