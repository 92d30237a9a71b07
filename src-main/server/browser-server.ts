import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { WorkbenchError } from '../contract/errors';
import type { EventMessage, RequestMessage, ResponseMessage } from '../contract/transport';
import type { Workbench } from '../services/workbench';
import { serveStatic } from './static-files';

export interface BrowserServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Requests are small; results can be large, but those go the other way. */
const maxRequestBytes = 8 * 1024 * 1024;

/**
 * Browser mode: the built renderer over HTTP and the contract over a WebSocket, on the
 * loopback interface only. A random token minted per launch must accompany the WebSocket
 * upgrade, and the Origin must be this server, so neither another local user's page nor a
 * website the analyst visits can reach the workspace.
 */
export async function startBrowserServer(options: { workbench: Workbench; rendererDir: string; port?: number }): Promise<BrowserServer> {
  const token = randomBytes(24).toString('base64url');
  const server = createServer();
  const sockets = new WebSocketServer({ noServer: true, maxPayload: maxRequestBytes });
  let origins: Set<string> = new Set();
  let connectSrc = '';

  server.on('request', (request, response) => {
    serveStatic(options.rendererDir, request, response, securityHeaders(connectSrc));
  });
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const refusal =
      url.pathname !== '/api'
        ? '404 Not Found'
        : !sameToken(url.searchParams.get('token') ?? '', token)
          ? '401 Unauthorized'
          : !origins.has(request.headers.origin ?? '')
            ? '403 Forbidden'
            : null;
    if (refusal) {
      socket.end(`HTTP/1.1 ${refusal}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    sockets.handleUpgrade(request, socket, head, (client) => serveClient(client, options.workbench));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  origins = new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`]);
  connectSrc = `ws://127.0.0.1:${port} ws://localhost:${port}`;

  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    close: async () => {
      for (const client of sockets.clients) client.terminate();
      await new Promise<void>((resolve) => sockets.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function serveClient(client: WebSocket, workbench: Workbench): void {
  const unsubscribe = workbench.subscribe((event, payload) => {
    const message: EventMessage = { event, payload };
    client.send(JSON.stringify(message));
  });
  client.on('close', unsubscribe);
  client.on('message', (data) => {
    let request: RequestMessage;
    try {
      request = JSON.parse(data.toString()) as RequestMessage;
      if (typeof request.id !== 'number' || typeof request.method !== 'string') throw new Error('not a request');
    } catch {
      client.send(JSON.stringify({ id: -1, ok: false, error: new WorkbenchError('invalid-request', 'Malformed message').toJSON() }));
      return;
    }
    workbench.call(request.method, request.params).then(
      (result) => reply(client, { id: request.id, ok: true, result }),
      (error: unknown) => reply(client, { id: request.id, ok: false, error: WorkbenchError.from(error).toJSON() }),
    );
  });
}

function reply(client: WebSocket, message: ResponseMessage): void {
  if (client.readyState === client.OPEN) client.send(JSON.stringify(message));
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function securityHeaders(connectSrc: string): Record<string, string> {
  return {
    'Content-Security-Policy': [
      "default-src 'self'",
      "script-src 'self'",
      // Monaco positions its widgets with inline styles.
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data:",
      "font-src 'self' data:",
      "worker-src 'self' blob:",
      `connect-src 'self' ${connectSrc}`,
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
  };
}
