import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { connectSocket, startServe, type ServeProcess } from '../support/serve';
import { useSuiteTempDir } from '../support/temp';

const suiteDir = useSuiteTempDir();
let server: ServeProcess;

beforeAll(async () => {
  server = await startServe(suiteDir());
});
afterAll(async () => {
  await server.stop();
});

function upgradeStatus(url: string, origin: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { origin });
    socket.once('open', () => {
      socket.close();
      resolve('open');
    });
    socket.once('unexpected-response', (_request, response) => resolve(String(response.statusCode)));
    socket.once('error', () => resolve('error'));
  });
}

describe('dwb serve (browser mode)', () => {
  it('listens on loopback and serves the renderer with a strict content security policy', async () => {
    expect(server.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(server.url);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<div id="root"></div>');
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("object-src 'none'");
    expect(policy).toContain("frame-ancestors 'none'");
  });

  it('never serves files outside the renderer', async () => {
    for (const path of ['/../package.json', '/%2e%2e/package.json', '/..%2f..%2fpackage.json', '/nope.js']) {
      const response = await fetch(`${server.origin}${path}`);
      expect(response.status, path).toBe(404);
    }
  });

  it('requires the launch token and this origin for the API socket', async () => {
    const base = `${server.origin.replace('http', 'ws')}/api`;
    expect(await upgradeStatus(`${base}?token=${server.token}`, server.origin)).toBe('open');
    expect(await upgradeStatus(`${base}?token=wrong`, server.origin)).toBe('401');
    expect(await upgradeStatus(base, server.origin)).toBe('401');
    expect(await upgradeStatus(`${base}?token=${server.token}`, 'http://evil.example')).toBe('403');
    expect(await upgradeStatus(`${base}?token=${server.token}`, 'http://127.0.0.1:1')).toBe('403');
  });

  it('carries the same contract as the desktop app, errors included', async () => {
    const client = await connectSocket(server);
    const info = await client.invoke('workspace/info', {});
    expect(info).toMatchObject({ directory: suiteDir(), transport: 'websocket' });
    const notebooks = await client.invoke('notebooks/list', {});
    expect(notebooks.map((notebook) => notebook.title)).toContain('Welcome to Decision Workbench');
    await expect(client.invoke('notebooks/get', { id: 'missing' })).rejects.toMatchObject({ name: 'WorkbenchError', code: 'not-found' });
    await expect(client.invoke('notebooks/create', { title: 42 as unknown as string })).rejects.toMatchObject({ code: 'invalid-request' });
    client.close();
  });
});
