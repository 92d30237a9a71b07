import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { WorkbenchError } from '../contract/errors';

/** Where Chromium is looked for: `CHROMIUM_PATH`, else Debian's package. */
export function chromiumPath(): string {
  return process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
}

/** Flags for a headless Chromium that works offline, in containers, with no first-run noise. */
export const chromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * Starts headless Chromium through playwright-core. The module name is not a literal so the
 * bundler leaves it out of the CLI build: playwright-core is loaded from node_modules only when
 * a PDF is asked for. Any failure to start is one clear `unsupported` error saying what to do.
 */
export async function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!existsSync(executablePath)) {
    throw new WorkbenchError(
      'unsupported',
      `PDF export needs Chromium, and there is none at ${executablePath}. Install it (Debian: apt-get install chromium) or set CHROMIUM_PATH to a Chromium or Chrome binary; or export HTML and print it from a browser.`,
    );
  }
  const moduleName = 'playwright-core';
  let playwright: typeof import('playwright-core');
  try {
    playwright = (await import(/* @vite-ignore */ moduleName)) as typeof import('playwright-core');
  } catch (error) {
    throw new WorkbenchError('unsupported', `PDF export needs the playwright-core package, which could not be loaded (${error instanceof Error ? error.message : String(error)}). Run npm install in the workbench folder.`);
  }
  try {
    return await playwright.chromium.launch({ executablePath, args: chromiumFlags });
  } catch (error) {
    throw new WorkbenchError('unsupported', `Could not start Chromium at ${executablePath}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
}
