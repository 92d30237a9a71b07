import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { chromiumFlags, chromiumPath } from '../../src-main/reports/chromium';
import { repoRoot } from './fixtures';

/** Debian's Chromium, headless, with the same flags the app prints PDFs with (README › Tests). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: chromiumFlags });
}

export const screenshotDir = join(repoRoot, 'test-results', 'e2e');

/** Saves a full-page screenshot next to the test output, to be looked at. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(screenshotDir, { recursive: true });
  const path = join(screenshotDir, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}
