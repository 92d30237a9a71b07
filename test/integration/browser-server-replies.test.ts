import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Notebook, NotebookSummary } from '../../src-main/contract';
import { createWebSocketClient, type ClientSocket } from '../../src-renderer/api/websocket-client';
import { connectSocket, startServe, type ServeProcess } from '../support/serve';
import { useSuiteTempDir } from '../support/temp';
import { until } from '../support/until';

/**
 * Issue 26, item 7: a request whose reply was lost ran twice, because the browser-mode client
 * sent every unanswered request again when it reconnected and the server did not drop repeated
 * ids. Now the server answers each id of a session at most once, and the client sends again only
 * what it never sent. Against the real `dwb serve`, with the renderer's own transport.
 */
const suiteDir = useSuiteTempDir();
let server: ServeProcess;

beforeAll(async () => {
  server = await startServe(suiteDir());
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

interface RawSocket {
  send(frame: object): void;
  replies: { id: number; ok: boolean; result?: unknown; error?: { code: string; message: string } }[];
  close(): void;
}

/** An authenticated socket of the given session (or none) that keeps every reply it gets. */
async function rawSocket(session: string | null): Promise<RawSocket> {
  const query = session === null ? '' : `&session=${session}`;
  const socket = new WebSocket(`${server.origin.replace('http', 'ws')}/api?token=${server.token}${query}`, { origin: server.origin });
  const replies: RawSocket['replies'] = [];
  socket.on('message', (data) => {
    const message = JSON.parse(data.toString()) as { id?: number };
    if (message.id !== undefined) replies.push(message as RawSocket['replies'][number]);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return { send: (frame) => socket.send(JSON.stringify(frame)), replies, close: () => socket.close() };
}

async function notebooksTitled(title: string): Promise<NotebookSummary[]> {
  const observer = await connectSocket(server);
  try {
    return (await observer.invoke('notebooks/list', {})).filter((notebook) => notebook.title === title);
  } finally {
    observer.close();
  }
}

describe('the server answers each request id of a session at most once', () => {
  it('a notebooks/create repeated with the same id, on the same socket or after a reconnect, creates one notebook and gets the first reply', async () => {
    const session = 'session-aaaaaaaaaaaaaaaa';
    const create = { id: 1, method: 'notebooks/create', params: { title: 'Made once' } };
    const first = await rawSocket(session);
    // Twice at once: the second arrives while the first may still run, and waits for its reply.
    first.send(create);
    first.send(create);
    await until(() => (first.replies.length === 2 ? true : undefined));
    first.close();
    const again = await rawSocket(session);
    again.send(create);
    await until(() => (again.replies.length === 1 ? true : undefined));
    const replies = [...first.replies, ...again.replies];
    expect(replies.every((reply) => reply.ok)).toBe(true);
    const ids = new Set(replies.map((reply) => (reply.result as Notebook).id));
    expect(ids.size).toBe(1);
    expect(await notebooksTitled('Made once')).toHaveLength(1);

    // The same id for another request is refused, and that request does not run.
    again.send({ id: 1, method: 'notebooks/create', params: { title: 'Not made' } });
    again.send({ id: 1, method: 'workspace/info', params: {} });
    await until(() => (again.replies.length === 3 ? true : undefined));
    expect(again.replies[1]).toMatchObject({ id: 1, ok: false, error: { code: 'conflict', message: 'Request id 1 was used already, for the same request with other parameters: give each request its own id' } });
    expect(again.replies[2]).toMatchObject({ id: 1, ok: false, error: { code: 'conflict', message: 'Request id 1 was used already, for notebooks/create: give each request its own id' } });
    expect(await notebooksTitled('Not made')).toHaveLength(0);
    again.close();

    // Another session's id 1 is its own request.
    const other = await rawSocket('session-bbbbbbbbbbbbbbbb');
    other.send({ id: 1, method: 'notebooks/create', params: { title: 'Other session' } });
    await until(() => (other.replies.length === 1 ? true : undefined));
    expect(other.replies[0]).toMatchObject({ id: 1, ok: true, result: { title: 'Other session' } });
    other.close();
  });

  it('a socket that names no session is answered once per id too', async () => {
    const socket = await rawSocket(null);
    socket.send({ id: 7, method: 'notebooks/create', params: { title: 'No session' } });
    socket.send({ id: 7, method: 'notebooks/create', params: { title: 'No session' } });
    await until(() => (socket.replies.length === 2 ? true : undefined));
    expect(socket.replies[1]).toEqual(socket.replies[0]);
    expect(await notebooksTitled('No session')).toHaveLength(1);
    socket.close();
  });

  it('refuses the upgrade of a session id that is not 16 to 64 URL-safe characters', async () => {
    for (const session of ['short', 'x'.repeat(65), 'has space in it ok', '%00aaaaaaaaaaaaaaaaaaaa']) {
      const socket = new WebSocket(`${server.origin.replace('http', 'ws')}/api?token=${server.token}&session=${encodeURIComponent(session)}`, { origin: server.origin });
      const status = await new Promise<number>((resolve) => {
        socket.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
        socket.once('open', () => resolve(101));
        socket.once('error', () => undefined);
      });
      expect(status, session).toBe(400);
      socket.terminate();
    }
  });
});

/** One client connection through the proxy; `dropReplies` loses whatever the server sends from then on, as a dying network does. */
interface ProxiedLink {
  dropReplies: boolean;
  cut(): void;
}

/** A TCP proxy in front of the server, so a test can lose a reply on the wire and then cut the link. */
async function startProxy(port: number): Promise<{ server: Server; port: number; links: ProxiedLink[] }> {
  const links: ProxiedLink[] = [];
  const proxy = createServer((downstream: Socket) => {
    const upstream = connect(port, '127.0.0.1');
    const link: ProxiedLink = {
      dropReplies: false,
      cut: () => {
        upstream.destroy();
        downstream.destroy();
      },
    };
    links.push(link);
    downstream.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (!link.dropReplies) downstream.write(chunk);
    });
    for (const end of [upstream, downstream]) {
      end.on('error', () => link.cut());
      end.on('close', () => link.cut());
    }
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return { server: proxy, port: (proxy.address() as AddressInfo).port, links };
}

describe('the browser-mode client sends a request once', () => {
  it('after a drop it sends what it never sent and not what it sent: a request whose reply was lost fails and is not carried out again', async () => {
    const proxy = await startProxy(Number(new URL(server.origin).port));
    const urls: string[] = [];
    const states: string[] = [];
    const client = createWebSocketClient({
      url: `ws://127.0.0.1:${proxy.port}/api?token=${server.token}`,
      onStateChange: (state) => states.push(state),
      openSocket: (url) => {
        urls.push(url);
        const socket = new WebSocket(url, { origin: server.origin });
        socket.on('error', () => undefined);
        return socket as unknown as ClientSocket;
      },
    });
    await until(() => (states.at(-1) === 'open' ? true : undefined));
    expect(new URL(urls[0] ?? '').searchParams.get('session')).toMatch(/^[0-9a-f]{32}$/);

    // The server carries the request out, its reply is lost on the way, then the link drops.
    const first = proxy.links[0] as ProxiedLink;
    first.dropReplies = true;
    const lost = client.invoke('notebooks/create', { title: 'Reply lost' }).then(
      () => null,
      (error: unknown) => error,
    );
    await until(async () => ((await notebooksTitled('Reply lost')).length === 1 ? true : undefined));
    first.cut();
    expect(await lost).toMatchObject({
      name: 'WorkbenchError',
      code: 'connection-failed',
      message: 'The connection to the workbench dropped before notebooks/create was answered: it may have been carried out, so look before doing it again',
    });

    // Asked while disconnected: sent once the client is back, on a socket of the same session.
    expect(states.at(-1)).toBe('closed');
    const made = await client.invoke('notebooks/create', { title: 'Asked while away' });
    expect(made.title).toBe('Asked while away');
    expect(urls).toHaveLength(2);
    expect(new URL(urls[1] ?? '').searchParams.get('session')).toBe(new URL(urls[0] ?? '').searchParams.get('session'));
    // Anything the client sent again on the new socket was handled before this reply.
    await client.invoke('notebooks/list', {});
    expect(await notebooksTitled('Reply lost')).toHaveLength(1);
    expect(await notebooksTitled('Asked while away')).toHaveLength(1);
    proxy.server.close();
    for (const link of proxy.links) link.cut();
  });
});
