import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openWorkbench } from '../../src-main/services/workbench';
import { fixedEnvironment } from '../support/fixtures';
import { screenshot, useAppInBrowser } from '../support/browser';
import { useSuiteTempDir } from '../support/temp';

/**
 * Issue 26, item 3 in the app: a workspace whose stored base URL held a key in its query says,
 * in the model settings, that it was removed; typing such a URL is refused with the message.
 */
const workspace = useSuiteTempDir();
const storedKey = 'sk-e2e-Jd8-old-query-key';
const typedKey = 'sk-e2e-Pw5-typed-query-key';

const app = useAppInBrowser({
  prepare: async () => {
    const directory = workspace();
    await openWorkbench({ workspaceDir: directory, platform: { transport: 'websocket' }, environment: fixedEnvironment(), installDemo: false }).close();
    // What an older version stored when the analyst pasted a URL with its key.
    const raw = new Database(join(directory, 'workspace.sqlite'));
    raw.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run('model-settings', JSON.stringify({ baseUrl: `http://127.0.0.1:9/v1?api_key=${storedKey}`, model: 'm' }));
    raw.close();
    return { workspace: directory };
  },
});

describe('model settings and a key in the base URL', () => {
  it('say the stored key was moved out of the URL, and refuse a typed ?api_key= with the message', async () => {
    const { page } = app;
    await page.goto(app.server.url);
    await page.getByTestId('open-model-settings').click();
    const dialog = page.getByTestId('model-settings');
    await expect.poll(() => dialog.getByTestId('model-settings-notice').innerText()).toBe(
      'The stored base URL held a query string, which could be a key: removed from the workspace, the base URL is now http://127.0.0.1:9/v1. The credential (its "api_key" parameter) is kept as the API key in the secret store.',
    );
    expect(await dialog.getByLabel('Base URL').inputValue()).toBe('http://127.0.0.1:9/v1');
    expect(await page.content()).not.toContain(storedKey);
    await screenshot(page, 'model-settings-url-key-notice');

    await dialog.getByLabel('Base URL').fill(`http://127.0.0.1:9/v1?api_key=${typedKey}`);
    await dialog.getByTestId('save-model').click();
    const alert = dialog.getByRole('alert');
    await expect.poll(() => alert.innerText()).toContain('baseUrl must not contain a user name or password (user:secret@), a query string (?api_key=…) or a fragment (#…)');
    expect(await alert.innerText()).not.toContain(typedKey);
    expect(app.pageErrors).toEqual([]);
  });
});
