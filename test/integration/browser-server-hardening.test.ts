import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { connectSocket, startServe, type ServeProcess } from '../support/serve';
import { useTempDirs } from '../support/temp';

/**
 * Reproducers from the attack on browser mode (issue 17, items 3 and 5): each one ended
 * `dwb serve`. Every test starts its own server so one crash cannot hide another, and ends by
 * checking that the server still answers a valid request.
 */
const tempDir = useTempDirs();
let server: ServeProcess | null = null;

afterEach(async () => {
  await server?.stop();
  server = null;
});

async function serve(): Promise<ServeProcess> {
  server = await startServe(tempDir());
  return server;
}

/** The server is alive and still serves the page and the contract. */
async function expectAlive(running: ServeProcess): Promise<void> {
  expect(running.child.exitCode, 'dwb serve exited').toBeNull();
  expect(running.child.signalCode, 'dwb serve was killed').toBeNull();
  const page = await fetch(running.url);
  expect(page.status).toBe(200);
  const client = await connectSocket(running);
  expect(await client.invoke('workspace/info', {})).toMatchObject({ transport: 'websocket' });
  client.close();
}

/** Sends a raw request line, so that the path reaches the server exactly as written. */
function rawGet(running: ServeProcess, path: string): Promise<number> {
  const port = Number(new URL(running.origin).port);
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`));
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer);
      if (status) resolve(Number(status[1]));
      else reject(new Error(`no HTTP answer for ${path} (server gone?)`));
    });
  });
}

/** An authenticated socket that records how the server closed it and every message it sent. */
async function openRawSocket(running: ServeProcess): Promise<{ socket: WebSocket; messages: unknown[]; closed: Promise<{ code: number; reason: string }> }> {
  const socket = new WebSocket(`${running.origin.replace('http', 'ws')}/api?token=${running.token}`, { origin: running.origin });
  const messages: unknown[] = [];
  socket.on('message', (data) => messages.push(JSON.parse(data.toString())));
  socket.on('error', () => undefined);
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return { socket, messages, closed };
}

async function nextMessage(messages: unknown[], count: number): Promise<unknown> {
  await expect.poll(() => messages.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(count);
  return messages[count - 1];
}

describe('dwb serve survives malformed static paths (issue 17, item 3)', () => {
  it.each(['/%ff', '/%', '/%zz', '/%c0%af', '/assets/%e0%80', '/%ed%a0%80.js'])('answers %s with 400 and keeps serving', async (path) => {
    const running = await serve();
    expect(await rawGet(running, path)).toBe(400);
    await expectAlive(running);
  });

  it('refuses traversal and NUL bytes however they are spelled, and still serves real files', async () => {
    const running = await serve();
    for (const path of ['/..%2f..%2fpackage.json', '/%2e%2e%2f%2e%2e%2fpackage.json', '/..%5c..%5cpackage.json', '/assets/..%2f..%2f..%2fpackage.json']) {
      expect(await rawGet(running, path), path).toBe(404);
    }
    expect(await rawGet(running, '/index.html%00.js')).toBe(400);
    expect(await rawGet(running, 'http://[')).toBe(400);
    expect(await rawGet(running, '/index.html')).toBe(200);
    await expectAlive(running);
  });
});

describe('dwb serve survives hostile WebSocket frames (issue 17, item 5)', () => {
  it('closes a socket that sends more than 8 MiB with 1009 and a reason, and keeps serving', async () => {
    const running = await serve();
    const { socket, closed } = await openRawSocket(running);
    socket.send('x'.repeat(8 * 1024 * 1024 + 1));
    const { code, reason } = await closed;
    expect(code).toBe(1009);
    expect(reason).toMatch(/8 MiB/);
    await expectAlive(running);
  });

  it('closes a socket that sends a text frame of invalid UTF-8 with 1007, and keeps serving', async () => {
    const running = await serve();
    const { socket, closed } = await openRawSocket(running);
    // ws validates outgoing text only when asked to; send the raw bytes as a text frame.
    socket.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
    expect((await closed).code).toBe(1007);
    await expectAlive(running);
  });

  it('answers malformed, mistyped and unknown requests with a specific error', async () => {
    const running = await serve();
    const { socket, messages } = await openRawSocket(running);
    const cases: [string | Buffer, RegExp, number][] = [
      ['not json', /not JSON/, -1],
      ['null', /object/, -1],
      ['[1,2]', /object/, -1],
      ['{"id":"1","method":"workspace/info"}', /id/, -1],
      ['{"id":1e400,"method":"workspace/info"}', /id/, -1],
      ['{"id":1.5,"method":"workspace/info"}', /id/, -1],
      ['{"id":7}', /method/, 7],
      ['{"id":8,"method":"no/such"}', /Unknown request "no\/such"/, 8],
      ['{"id":9,"method":"notebooks/get","params":"x"}', /Invalid notebooks\/get request/, 9],
      ['{"id":10,"method":"__proto__"}', /Unknown request/, 10],
      [Buffer.from('{"id":11,"method":"workspace/info"}'), /binary/i, -1],
    ];
    for (const [index, [frame, message, id]] of cases.entries()) {
      socket.send(frame, { binary: Buffer.isBuffer(frame) });
      const reply = (await nextMessage(messages, index + 1)) as { id: number; ok: boolean; error: { code: string; message: string } };
      expect(reply, String(frame)).toMatchObject({ id, ok: false, error: { code: 'invalid-request' } });
      expect(reply.error.message, String(frame)).toMatch(message);
    }
    socket.close();
    await expectAlive(running);
  });
});
