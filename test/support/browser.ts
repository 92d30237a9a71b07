import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { chromiumFlags, chromiumPath } from '../../src-main/reports/chromium';
import { repoRoot } from './fixtures';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer, type ScriptStep } from './scripted-openai';
import { startServe, type ServeProcess } from './serve';
import { useSuiteTempDir } from './temp';

/** Debian's Chromium, headless, with the same flags the app prints PDFs with (docs/testing.md). */
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

/** Opens the command palette (Ctrl+K), types a command's name, waits until it is the first match, and runs it. */
export async function runPaletteCommand(page: Page, label: string): Promise<void> {
  await page.keyboard.press('Control+K');
  const palette = page.getByTestId('command-palette');
  await palette.waitFor();
  await page.keyboard.type(label);
  await expect.poll(() => palette.getByTestId('palette-item').first().innerText()).toContain(label);
  await page.keyboard.press('Enter');
  await palette.waitFor({ state: 'detached' });
}

/** The text a Monaco editor shows (it renders spaces as no-break spaces). */
export async function editorText(editor: Locator): Promise<string> {
  const lines = await editor.locator('.view-line').allInnerTexts();
  return lines.join('\n').replaceAll('\u00a0', ' ');
}

/**
 * `useAppInBrowser` with a scripted model started before the app and closed after the suite.
 * The model is offered under the name `modelName` ('scripted-model' unless said otherwise).
 */
export function useAppWithScriptedModel(
  script: ScriptStep[],
  options: { viewport?: { width: number; height: number }; modelName?: string } = {},
): { app: AppSession; model: () => ScriptedOpenAiServer } {
  let scripted: ScriptedOpenAiServer | undefined;
  const app = useAppInBrowser({
    ...(options.viewport ? { viewport: options.viewport } : {}),
    prepare: async () => {
      scripted = await startScriptedOpenAiServer(script, { models: [options.modelName ?? 'scripted-model'] });
    },
  });
  afterAll(async () => {
    await scripted?.close();
  });
  const model = (): ScriptedOpenAiServer => {
    if (!scripted) throw new Error('the scripted model is not started');
    return scripted;
  };
  return { app, model };
}

/** Fills the model settings dialog's endpoint: base URL, model name and native tool calls. */
async function fillModelSettings(dialog: Locator, baseUrl: string, model: string): Promise<void> {
  await dialog.getByLabel('Base URL').fill(baseUrl);
  await dialog.getByLabel('Model').fill(model);
  await dialog.getByLabel('Tool calling').selectOption('tools');
}

/** Points the workspace at a model endpoint through the settings dialog, as a user does (no test call). */
export async function setModelInApp(page: Page, baseUrl: string, model = 'scripted-model'): Promise<void> {
  await page.getByTestId('open-model-settings').click();
  const dialog = page.getByTestId('model-settings');
  await fillModelSettings(dialog, baseUrl, model);
  await dialog.getByTestId('save-model').click();
  await dialog.waitFor({ state: 'detached' });
}

/**
 * Sets up the scripted model as a user does: the settings dialog's endpoint, then "Test
 * connection" (the script's first three turns answer its probes) until it reports Connected,
 * then Save, until the sidebar names the model. `beforeSave` looks at the tested dialog.
 */
export async function configureScriptedModel(
  page: Page,
  model: ScriptedOpenAiServer,
  options: { modelName?: string; beforeSave?: (dialog: Locator) => Promise<void> } = {},
): Promise<void> {
  const modelName = options.modelName ?? 'scripted-model';
  await page.getByTestId('open-model-settings').click();
  const dialog = page.getByTestId('model-settings');
  await fillModelSettings(dialog, model.baseUrl, modelName);
  await dialog.getByRole('button', { name: 'Test connection' }).click();
  await expect.poll(() => dialog.getByTestId('model-test-report').innerText()).toContain('Connected');
  await options.beforeSave?.(dialog);
  await dialog.getByTestId('save-model').click();
  await expect.poll(() => page.getByTestId('model-summary').innerText()).toContain(modelName);
}

/**
 * Opens the run composer on the `question`-th sample question (the first by default), picks a
 * technique and step-through if asked, and returns the composer; starting the run is the caller's.
 */
export async function openRunComposer(page: Page, options: { question?: number; technique?: string; stepThrough?: boolean } = {}): Promise<Locator> {
  await page.getByTestId('run-question').nth(options.question ?? 0).click();
  const composer = page.getByTestId('run-composer');
  if (options.technique) await composer.getByLabel('Technique').selectOption(options.technique);
  if (options.stepThrough) await composer.getByLabel('Step-through').check();
  return composer;
}
