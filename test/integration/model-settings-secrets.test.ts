import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { encryptedSecretStore } from '../../src-main/secrets/secret-store';
import { openWorkbench, type Workbench } from '../../src-main/services/workbench';
import { fixedEnvironment } from '../support/fixtures';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer } from '../support/scripted-openai';
import { useTempDirs } from '../support/temp';
import { testEncryptor } from '../support/test-encryptor';

/**
 * Issue 17, item 10: a password written into the model base URL was stored in plain text in
 * workspace.sqlite and echoed back to the renderer.
 */
const tempDir = useTempDirs();
const opened: Workbench[] = [];
const servers: ScriptedOpenAiServer[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((workbench) => workbench.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});


function open(directory: string, encryptor = testEncryptor()): Workbench {
  const workbench = openWorkbench({
    workspaceDir: directory,
    platform: { transport: 'ipc', secretStore: (database) => encryptedSecretStore(database, encryptor) },
    environment: fixedEnvironment(),
    installDemo: false,
  });
  opened.push(workbench);
  return workbench;
}

/** Every byte the workspace database keeps on disk: the file and its write-ahead log. */
function workspaceBytes(directory: string): string {
  return ['workspace.sqlite', 'workspace.sqlite-wal', 'workspace.sqlite-journal']
    .map((name) => join(directory, name))
    .filter((path) => existsSync(path))
    .map((path) => readFileSync(path).toString('latin1'))
    .join('\n');
}

const password = 'pw-Zq81-never-on-disk';

describe('model settings keep credentials out of the base URL (issue 17, item 10)', () => {
  it('refuses a base URL with a user name or password, without quoting it, and stores nothing', async () => {
    const directory = tempDir();
    const workbench = open(directory);
    for (const baseUrl of [`http://analyst:${password}@127.0.0.1:9/v1`, `https://${password}@api.example.com/v1`]) {
      for (const method of ['model/save', 'model/test'] as const) {
        const refusal = await workbench.call(method, { settings: { baseUrl, model: 'm' } }).then(
          () => null,
          (error: unknown) => error as { code: string; message: string },
        );
        expect(refusal, `${method} ${baseUrl}`).toMatchObject({ code: 'invalid-request', message: expect.stringMatching(/must not contain a user name or password/) });
        expect(refusal?.message).not.toContain(password);
      }
    }
    expect((await workbench.invoke('model/get', {})).settings).toBeNull();
    // The same settings with the key given as a key round-trip, and the key is never shown.
    const view = await workbench.invoke('model/save', { settings: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }, apiKey: password });
    expect(view).toMatchObject({ settings: { baseUrl: 'http://127.0.0.1:9/v1' }, hasApiKey: true });
    expect(JSON.stringify(await workbench.invoke('model/get', {}))).not.toContain(password);
    await workbench.close();
    expect(workspaceBytes(directory)).not.toContain(password);
  });

  it('moves a password stored by an older version into the secret store and out of the file', async () => {
    const model = await startScriptedOpenAiServer([{ content: 'OK' }, { content: 'OK' }, { content: 'OK' }], { requireApiKey: password, models: ['m'] });
    servers.push(model);
    const directory = tempDir();
    const encryptor = testEncryptor();
    await open(directory, encryptor).close();
    // What an older version wrote when the analyst typed the password into the URL.
    const legacyUrl = model.baseUrl.replace('http://', `http://analyst:${encodeURIComponent(password)}@`);
    const raw = new Database(join(directory, 'workspace.sqlite'));
    raw.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run('model-settings', JSON.stringify({ baseUrl: legacyUrl, model: 'm', stream: false }));
    raw.close();
    expect(workspaceBytes(directory)).toContain(password);

    const workbench = open(directory, encryptor);
    const view = await workbench.invoke('model/get', {});
    expect(view.settings?.baseUrl).toBe(model.baseUrl);
    expect(view.hasApiKey).toBe(true);
    expect(JSON.stringify(view)).not.toContain(password);
    // The credential still works: it is now sent as the API key.
    const report = await workbench.invoke('model/test', { settings: view.settings! });
    expect(model.requests.length).toBeGreaterThan(0);
    for (const request of model.requests) expect(request.headers.authorization).toBe(`Bearer ${password}`);
    expect(JSON.stringify(report)).not.toContain(password);
    await workbench.close();
    expect(workspaceBytes(directory)).not.toContain(password);
  });
});

describe('a key in the base URL query string or fragment (issue 26, item 3)', () => {
  const queryKey = 'sk-query-Hx42-never-on-disk';

  it('refuses ?api_key=, ?key=, any query and any fragment in model/save and model/test, and stores nothing', async () => {
    const directory = tempDir();
    const workbench = open(directory);
    const urls = [`http://127.0.0.1:9/v1?api_key=${queryKey}`, `http://127.0.0.1:9/v1?key=${queryKey}`, `http://127.0.0.1:9/v1#${queryKey}`, 'http://127.0.0.1:9/v1?'];
    for (const baseUrl of urls) {
      for (const method of ['model/save', 'model/test'] as const) {
        const refusal = await workbench.call(method, { settings: { baseUrl, model: 'm' } }).then(
          () => null,
          (error: unknown) => error as { code: string; message: string },
        );
        expect(refusal, `${method} ${baseUrl}`).toMatchObject({ code: 'invalid-request', message: expect.stringMatching(/must not contain a user name or password \(user:secret@\), a query string \(\?api_key=…\) or a fragment/) });
        expect(refusal?.message).not.toContain(queryKey);
      }
    }
    expect((await workbench.invoke('model/get', {})).settings).toBeNull();
    await workbench.close();
    expect(workspaceBytes(directory)).not.toContain(queryKey);
  });

  it('cleans a query key stored by an older version on opening: the key moves to the secret store, a note says so, the file and its WAL lose it', async () => {
    const model = await startScriptedOpenAiServer([{ content: 'OK' }, { content: 'OK' }, { content: 'OK' }], { requireApiKey: queryKey, models: ['m'] });
    servers.push(model);
    const directory = tempDir();
    const encryptor = testEncryptor();
    await open(directory, encryptor).close();
    // What an older version stored when the analyst pasted a URL with the key in it.
    const raw = new Database(join(directory, 'workspace.sqlite'));
    raw.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run('model-settings', JSON.stringify({ baseUrl: `${model.baseUrl}?api_key=${queryKey}#${queryKey}`, model: 'm', stream: false }));
    raw.close();
    expect(workspaceBytes(directory)).toContain(queryKey);

    const workbench = open(directory, encryptor);
    const view = await workbench.invoke('model/get', {});
    expect(view.settings?.baseUrl).toBe(model.baseUrl);
    expect(view.hasApiKey).toBe(true);
    expect(view.notice).toBe(`The stored base URL held a query string and a fragment, which could be a key: removed from the workspace, the base URL is now ${model.baseUrl}. The credential (its "api_key" parameter) is kept as the API key in the secret store.`);
    expect(JSON.stringify(view)).not.toContain(queryKey);
    // Emptied from the write-ahead log too, while the workspace is still open.
    expect(workspaceBytes(directory)).not.toContain(queryKey);
    const report = await workbench.invoke('model/test', { settings: view.settings! });
    expect(model.requests.length).toBeGreaterThan(0);
    for (const request of model.requests) expect(request.headers.authorization).toBe(`Bearer ${queryKey}`);
    expect(JSON.stringify(report)).not.toContain(queryKey);
    await workbench.close();
    expect(workspaceBytes(directory)).not.toContain(queryKey);
    // Cleaned once: the next opening has nothing to say.
    const reopened = open(directory, encryptor);
    expect((await reopened.invoke('model/get', {})).notice).toBeUndefined();
  });

  it('keeps an API key already stored, and still removes the query from the file', async () => {
    const directory = tempDir();
    const encryptor = testEncryptor();
    const first = open(directory, encryptor);
    await first.invoke('model/save', { settings: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }, apiKey: password });
    await first.close();
    const raw = new Database(join(directory, 'workspace.sqlite'));
    raw.prepare('UPDATE settings SET value = ? WHERE key = ?').run(JSON.stringify({ baseUrl: `http://127.0.0.1:9/v1?key=${queryKey}`, model: 'm' }), 'model-settings');
    raw.close();
    expect(workspaceBytes(directory)).toContain(queryKey);

    const workbench = open(directory, encryptor);
    const view = await workbench.invoke('model/get', {});
    expect(view).toMatchObject({ settings: { baseUrl: 'http://127.0.0.1:9/v1' }, hasApiKey: true });
    expect(view.notice).toBe('The stored base URL held a query string, which could be a key: removed from the workspace, the base URL is now http://127.0.0.1:9/v1. Give the key as the API key if the server needs one.');
    await workbench.close();
    expect(workspaceBytes(directory)).not.toContain(queryKey);
  });
});
