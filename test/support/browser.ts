import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { chromiumFlags, chromiumPath } from '../../src-main/reports/chromium';
import { repoRoot } from './fixtures';
import { startServe, type ServeProcess } from './serve';
import { useSuiteTempDir } from './temp';

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

export interface AppSession {
  readonly server: ServeProcess;
  readonly page: Page;
  readonly browser: Browser;
  /** Uncaught page errors and unexpected dialogs; a suite ends by expecting none. */
  readonly pageErrors: string[];
  /** The workspace folder `dwb serve` opened. */
  readonly workspaceDir: string;
}

/**
 * One `dwb serve` and one Chromium page for a suite, started before its first test and stopped
 * after its last. `prepare` runs first (e.g. to start a scripted model or import data) and may
 * name the workspace; the default is a fresh folder.
 */
export function useAppInBrowser(
  options: { viewport?: { width: number; height: number }; prepare?: () => Promise<{ workspace?: string } | void>; timeoutMs?: number } = {},
): AppSession {
  const workspace = useSuiteTempDir();
  let server: ServeProcess | undefined;
  let browser: Browser | undefined;
  let page: Page | undefined;
  let workspaceDir: string | undefined;
  const pageErrors: string[] = [];
  beforeAll(async () => {
    const prepared = (await options.prepare?.()) ?? {};
    workspaceDir = prepared.workspace ?? workspace();
    server = await startServe(workspaceDir);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: options.viewport ?? { width: 1400, height: 950 } });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('dialog', (dialog) => {
      pageErrors.push(`unexpected dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
  }, options.timeoutMs ?? 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not started (used outside a test?)`);
    return value;
  };
  return {
    get server() {
      return started(server, 'dwb serve');
    },
    get browser() {
      return started(browser, 'Chromium');
    },
    get page() {
      return started(page, 'the page');
    },
    get workspaceDir() {
      return started(workspaceDir, 'the workspace');
    },
    pageErrors,
  };
}

/** Replaces the text of a Monaco editor by typing, as a user would (completions included). */
export async function typeInEditor(page: Page, editor: Locator, text: string): Promise<void> {
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.type(text);
  await page.keyboard.press('Escape'); // close any suggestion list
}

/** The text a Monaco editor shows (it renders spaces as no-break spaces). */
export async function editorText(editor: Locator): Promise<string> {
  const lines = await editor.locator('.view-line').allInnerTexts();
  return lines.join('\n').replaceAll('\u00a0', ' ');
}

/** Points the workspace at a model endpoint through the settings dialog, as a user does (no test call). */
export async function setModelInApp(page: Page, baseUrl: string, model = 'scripted-model'): Promise<void> {
  await page.getByTestId('open-model-settings').click();
  const dialog = page.getByTestId('model-settings');
  await dialog.getByLabel('Base URL').fill(baseUrl);
  await dialog.getByLabel('Model').fill(model);
  await dialog.getByLabel('Tool calling').selectOption('tools');
  await dialog.getByTestId('save-model').click();
  await dialog.waitFor({ state: 'detached' });
}
