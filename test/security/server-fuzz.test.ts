import { readdirSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { repoRoot } from '../support/fixtures';
import { connectSocket, startServe, type ServeProcess } from '../support/serve';
import { useSuiteTempDir } from '../support/temp';
import { brokenFrames, rawHttpRequest, requestText, Rng, type PathContext } from './server-fuzz-inputs';

/**
 * Fuzzes the real `dwb serve` on 127.0.0.1 with a seeded, bounded mix of hostile input: request
 * targets with bad escapes and traversal, random methods and headers, bytes that are not HTTP,
 * upgrades with wrong token, origin or path, broken WebSocket frames, oversized and invalid
 * UTF-8 messages, random JSON and requests of the right shape with random parts. After each
 * batch the server must still be running and answer a valid page and a valid request.
 * DWB_FUZZ_SEED replays a run; DWB_FUZZ_BATCHES makes it longer.
 */
const seed = Number(process.env.DWB_FUZZ_SEED ?? 20261125);
const batches = Number(process.env.DWB_FUZZ_BATCHES ?? 6);
const httpPerBatch = 500;
const framesPerBatch = 300;
const brokenSessionsPerBatch = 12;
const upgradesPerBatch = 20;

const suiteDir = useSuiteTempDir();
let server: ServeProcess;
let stderr = '';
const rendererDir = join(repoRoot, 'out', 'renderer');

/** Small files of the renderer, so that paths sometimes name something real. */
function smallRendererFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (statSync(path).size < 100_000) found.push(relative(rendererDir, path));
    }
  };
  walk(rendererDir);
  return found;
}

const figures = {
  httpSent: 0,
  httpStatuses: new Map<number, number>(),
  httpClosedWithoutAnswer: 0,
  httpHung: 0,
  upgradesRefused: 0,
  upgradesOpened: 0,
  framesSent: 0,
  repliesOk: 0,
  repliesError: 0,
  errorCodes: new Map<string, number>(),
  closeCodes: new Map<number, number>(),
  brokenSessions: 0,
  brokenLeftOpen: 0,
  livenessChecks: 0,
};
const bump = <K>(map: Map<K, number>, key: K): void => void map.set(key, (map.get(key) ?? 0) + 1);

beforeAll(async () => {
  server = await startServe(suiteDir());
  server.child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
});
afterAll(async () => {
  const crashed = server.child.exitCode !== null || server.child.signalCode !== null;
  await server.stop();
  const list = (map: Map<number | string, number>): string => [...map].sort().map(([key, count]) => `${key}: ${count}`).join(', ');
  const lines = [
    `server fuzz (seed ${seed}, ${batches} batches, 127.0.0.1 only)`,
    `  HTTP requests sent: ${figures.httpSent} (answers ${list(figures.httpStatuses)}; closed without an answer ${figures.httpClosedWithoutAnswer}; hung ${figures.httpHung})`,
    `  upgrades: ${figures.upgradesRefused} refused as expected, ${figures.upgradesOpened} opened with the right token and origin`,
    `  WebSocket messages sent: ${figures.framesSent} (replies: ${figures.repliesOk} ok, ${figures.repliesError} errors answered: ${list(figures.errorCodes)})`,
    `  protocol-breaking sessions: ${figures.brokenSessions} (closes ${list(figures.closeCodes)}; left waiting for more bytes ${figures.brokenLeftOpen})`,
    `  liveness checks passed: ${figures.livenessChecks}; lines logged by the server: ${stderr.split('\n').filter((line) => line.startsWith('dwb serve:')).length}`,
    `  crashes: ${crashed ? 1 : 0}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
});

interface HttpOutcome {
  /** Final statuses, one per request answered on the connection (1xx interim answers left out). */
  statuses: number[];
  body: string;
  hung: boolean;
}

/** Sends raw bytes on a fresh connection; reads until the server closes (or 5 s pass). */
function rawHttp(bytes: Buffer, halfClose: boolean): Promise<HttpOutcome> {
  const port = Number(new URL(server.origin).port);
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      socket.destroy();
    }, 5_000);
    socket.on('connect', () => {
      socket.write(bytes);
      if (halfClose) socket.end();
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const statuses = [...text.matchAll(/^HTTP\/1\.[01] (\d{3})/gm)].map((match) => Number(match[1])).filter((code) => code >= 200);
      resolve({ statuses, body: text, hung });
    });
  });
}

async function inPool<T>(count: number, width: number, task: (index: number) => Promise<T>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

/** Markers of files outside the renderer folder; no answer may ever contain them. */
const leaks = ['"name": "decision-workbench"', 'root:x:0:0', 'SQLite format 3', '[core]'];

async function httpBatch(rng: Rng, context: PathContext): Promise<void> {
  const requests = Array.from({ length: httpPerBatch }, () => rawHttpRequest(rng, context));
  await inPool(requests.length, 8, async (index) => {
    const request = requests[index] as ReturnType<typeof rawHttpRequest>;
    const outcome = await rawHttp(request.bytes, request.garbage);
    const sent = Math.max(1, request.bytes.toString('latin1').match(/ HTTP\/1\.1\r\nHost: 127\.0\.0\.1\r\nConnection: (?:keep-alive|close)\r\n\r\n/g)?.length ?? 1);
    figures.httpSent += sent;
    if (outcome.hung) figures.httpHung++;
    if (outcome.statuses.length === 0) figures.httpClosedWithoutAnswer++;
    for (const status of outcome.statuses) bump(figures.httpStatuses, status);
    const line = request.bytes.subarray(0, 120).toString('latin1').split('\r\n')[0];
    expect(outcome.hung, `no answer within 5 s to ${line}`).toBe(false);
    expect(outcome.statuses.length, `connection closed without an answer to ${line}`).toBeGreaterThan(0);
    expect(Math.max(...outcome.statuses), `server error for ${line}`).toBeLessThan(500);
    for (const leak of leaks) expect(outcome.body, `leaked a file outside the renderer for ${line}`).not.toContain(leak);
  });
}

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

async function upgradeBatch(rng: Rng): Promise<void> {
  const base = `${server.origin.replace('http', 'ws')}`;
  const attempts: [string, string, string][] = [
    [`${base}/api?token=${rng.token(32)}`, server.origin, '401'],
    [`${base}/api`, server.origin, '401'],
    [`${base}/api?token=${server.token.slice(0, -1)}`, server.origin, '401'],
    [`${base}/api?token=${server.token}`, rng.pick(['http://evil.example', 'null', 'http://127.0.0.1:1', `${server.origin}.evil.example`]), '403'],
    [`${base}/${rng.pick(['', 'apix', 'api/', '%ff', 'api%00'])}?token=${server.token}`, server.origin, '404'],
    [`${base}/api?token=${server.token}`, server.origin, 'open'],
  ];
  for (let count = 0; count < upgradesPerBatch; count++) {
    const [url, origin, expected] = rng.pick(attempts);
    expect(await upgradeStatus(url, origin), `${url} from ${origin}`).toBe(expected);
    if (expected === 'open') figures.upgradesOpened++;
    else figures.upgradesRefused++;
  }
  // Frames sent before authentication, on the same connection as a refused upgrade.
  const refused = await rawHttp(
    Buffer.concat([
      Buffer.from(`GET /api?token=wrong HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: ${server.origin}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${rng.bytes(16).toString('base64')}\r\n\r\n`),
      brokenFrames(rng).bytes,
    ]),
    false,
  );
  expect(refused.statuses).toEqual([401]);
  figures.upgradesRefused++;
}

interface FuzzSocket {
  socket: WebSocket;
  replies: { id: number; ok: boolean; error?: { code: string; message: string } }[];
  closed: Promise<{ code: number; reason: string }>;
}

async function openSocket(): Promise<FuzzSocket> {
  const socket = new WebSocket(`${server.origin.replace('http', 'ws')}/api?token=${server.token}`, { origin: server.origin });
  const replies: FuzzSocket['replies'] = [];
  socket.on('message', (data) => {
    const message = JSON.parse(data.toString()) as { id?: number; ok: boolean; error?: { code: string; message: string } };
    if (message.id !== undefined) replies.push(message as FuzzSocket['replies'][number]);
  });
  socket.on('error', () => undefined);
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return { socket, replies, closed };
}

/** Messages of every shape on one authenticated socket: each one must get exactly one reply. */
async function frameBatch(rng: Rng): Promise<void> {
  const client = await openSocket();
  let messages = 0;
  for (let count = 0; count < framesPerBatch; count++) {
    const roll = rng.int(20);
    if (roll === 0) client.socket.send(rng.bytes(rng.int(2000)), { binary: true });
    else if (roll === 1) {
      // One message in fragments.
      const text = Buffer.from(requestText(rng));
      const cut = rng.int(text.length + 1);
      client.socket.send(text.subarray(0, cut), { fin: false, binary: false });
      client.socket.send(text.subarray(cut), { fin: true, binary: false });
    } else if (roll === 2) {
      client.socket.ping(rng.bytes(rng.int(125)));
      continue;
    } else client.socket.send(requestText(rng));
    messages++;
    figures.framesSent++;
  }
  await expect.poll(() => client.replies.length, { timeout: 30_000, message: 'every message answered once' }).toBe(messages);
  for (const reply of client.replies) {
    if (reply.ok) figures.repliesOk++;
    else {
      figures.repliesError++;
      bump(figures.errorCodes, reply.error?.code ?? 'none');
      expect(reply.error?.message, JSON.stringify(reply)).toMatch(/\S/);
      // A specific refusal, never an unexplained internal failure.
      expect(reply.error?.code, JSON.stringify(reply)).not.toBe('internal');
    }
  }
  client.socket.close();
  await client.closed;

  // Messages the server must refuse by closing: too big, or text that is not UTF-8.
  const big = await openSocket();
  big.socket.send(Buffer.alloc(8 * 1024 * 1024 + 1 + rng.int(1024), 0x20), { binary: rng.chance(0.5) });
  figures.framesSent++;
  const bigClose = await big.closed;
  bump(figures.closeCodes, bigClose.code);
  expect(bigClose).toMatchObject({ code: 1009, reason: expect.stringMatching(/8 MiB/) });
  for (let count = 0; count < 2; count++) {
    const bad = await openSocket();
    bad.socket.send(Buffer.concat([Buffer.from('{"id":1,"method":"'), rng.bytes(8).map((byte) => byte | 0x80), Buffer.from([0xff]), Buffer.from('"}')]), { binary: false });
    figures.framesSent++;
    const badClose = await bad.closed;
    bump(figures.closeCodes, badClose.code);
    expect(badClose.code).toBe(1007);
  }
}

/** A raw handshake with the right token and origin, then frames that break the protocol. */
async function brokenFrameSession(rng: Rng): Promise<void> {
  const port = Number(new URL(server.origin).port);
  const frame = brokenFrames(rng);
  await new Promise<void>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let upgraded = false;
    const timer = setTimeout(() => {
      figures.brokenLeftOpen++;
      socket.destroy();
    }, 2_000);
    socket.on('connect', () =>
      socket.write(
        `GET /api?token=${server.token} HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: ${server.origin}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${rng.bytes(16).toString('base64')}\r\n\r\n`,
      ),
    );
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (!upgraded && received.includes('\r\n\r\n')) {
        upgraded = true;
        expect(received.toString('latin1')).toMatch(/^HTTP\/1\.1 101/);
        received = received.subarray(received.indexOf('\r\n\r\n') + 4);
        socket.write(frame.bytes);
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      // The server's close frame: 0x88, length, then the code.
      const closeAt = received.indexOf(0x88);
      if (closeAt >= 0 && received.length >= closeAt + 4) bump(figures.closeCodes, received.readUInt16BE(closeAt + 2));
      resolve();
    });
  });
  figures.brokenSessions++;
  figures.framesSent++;
}

async function expectAlive(): Promise<void> {
  expect(server.child.exitCode, `dwb serve exited: ${stderr}`).toBeNull();
  expect(server.child.signalCode).toBeNull();
  const page = await fetch(server.url);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('<div id="root"></div>');
  const client = await connectSocket(server);
  expect(await client.invoke('workspace/info', {})).toMatchObject({ directory: suiteDir(), transport: 'websocket' });
  expect(Array.isArray(await client.invoke('notebooks/list', {}))).toBe(true);
  client.close();
  figures.livenessChecks++;
}

describe('server fuzz: dwb serve under hostile HTTP and WebSocket input', () => {
  it(`stays up and answers every batch (seed ${seed})`, { timeout: 60_000 + batches * 60_000 }, async () => {
    const rng = new Rng(seed);
    const context: PathContext = { files: smallRendererFiles() };
    expect(context.files).toContain('index.html');
    await expectAlive();
    for (let batch = 0; batch < batches; batch++) {
      await httpBatch(rng, context);
      await expectAlive();
      await upgradeBatch(rng);
      await frameBatch(rng);
      await expectAlive();
      for (let session = 0; session < brokenSessionsPerBatch; session++) await brokenFrameSession(rng);
      await expectAlive();
    }
    expect(figures.httpSent + figures.framesSent).toBeGreaterThan(3000);
  });
});
