import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { WorkbenchError } from '../contract/errors';
import type { EventMessage, ResponseMessage } from '../contract/transport';
import type { Workbench } from '../services/workbench';
import { ReplyLedger, SessionReplies, sessionIdPattern } from './request-replies';
import { closeReasons, maxRequestBytes, readRequestFrame } from './socket-frames';
import { serveStatic } from './static-files';

export interface BrowserServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** One line per failure, on stderr unless the caller says otherwise. */
export type ServerLog = (line: string) => void;

/**
 * `ws` closes a socket that sent an oversized or invalid frame with the bare status code; this
 * adds the reason, so the client can tell what it did wrong.
 */
class ExplainingWebSocket extends WebSocket {
  override close(code?: number, data?: string | Buffer): void {
    super.close(code, data ?? (code === undefined ? undefined : closeReasons.get(code)));
  }
}

/**
 * Browser mode: the built renderer over HTTP and the contract over a WebSocket, on the
 * loopback interface only. A random token minted per launch must accompany the WebSocket
 * upgrade, and the Origin must be this server, so neither another local user's page nor a
 * website the analyst visits can reach the workspace.
 *
 * Nothing a client sends may end the process: every handler runs under a guard that answers
 * (500, a refused upgrade, an error reply) and logs one line, and every socket has an error
 * listener.
 */
export async function startBrowserServer(options: { workbench: Workbench; rendererDir: string; port?: number; log?: ServerLog }): Promise<BrowserServer> {
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const token = randomBytes(24).toString('base64url');
  const server = createServer();
  const sockets = new WebSocketServer({ noServer: true, maxPayload: maxRequestBytes, WebSocket: ExplainingWebSocket });
  let origins: Set<string> = new Set();
  let connectSrc = '';
  const ledger = new ReplyLedger();

  server.on('request', (request, response) => {
    try {
      if (serveDownload(options.workbench, request, response, log)) return;
      serveStatic(options.rendererDir, request, response, securityHeaders(connectSrc));
    } catch (error) {
      log(`dwb serve: ${request.method ?? '?'} request failed: ${describe(error)}`);
      if (response.headersSent) response.destroy();
      else response.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Internal error');
    }
  });
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node removes its own error listener from upgraded sockets; a reset must not be uncaught.
    const onSocketError = (error: Error): void => log(`dwb serve: upgrade socket: ${describe(error)}`);
    socket.on('error', onSocketError);
    try {
      const refusal = upgradeRefusal(request, token, origins);
      if (refusal) {
        socket.end(`HTTP/1.1 ${refusal}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
        return;
      }
      // A page names its session, so a reconnected socket shares its request ids; a client naming none has one per socket.
      const session = sessionOf(request);
      const replies = session === null ? new SessionReplies() : ledger.session(session);
      sockets.handleUpgrade(request, socket, head, (client) => {
        socket.removeListener('error', onSocketError);
        serveClient(client, options.workbench, replies, log);
      });
    } catch (error) {
      log(`dwb serve: upgrade failed: ${describe(error)}`);
      socket.destroy();
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  server.on('error', (error) => log(`dwb serve: server error: ${describe(error)}`));
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

/** Why an upgrade is refused (as a status line), or null to accept it. */
function upgradeRefusal(request: IncomingMessage, token: string, origins: Set<string>): string | null {
  let url: URL;
  try {
    url = new URL(request.url ?? '/', 'http://127.0.0.1');
  } catch {
    return '400 Bad Request';
  }
  if (url.pathname !== '/api') return '404 Not Found';
  if (!sameToken(url.searchParams.get('token') ?? '', token)) return '401 Unauthorized';
  if (!origins.has(request.headers.origin ?? '')) return '403 Forbidden';
  const session = url.searchParams.get('session');
  if (session !== null && !sessionIdPattern.test(session)) return '400 Bad Request';
  return null;
}

/** The session the upgrade names (checked by upgradeRefusal), or null. */
function sessionOf(request: IncomingMessage): string | null {
  return new URL(request.url ?? '/', 'http://127.0.0.1').searchParams.get('session');
}

/**
 * `GET /exports/<ticket>`: a result export streamed as a download. The ticket came from an
 * authenticated `results/export-csv` request, is random, works once and expires in a minute,
 * so the address itself is the permission (the browser's download cannot carry the token).
 * True when the request was one of these.
 */
function serveDownload(workbench: Workbench, request: IncomingMessage, response: ServerResponse, log: ServerLog): boolean {
  // Matched on the raw path: any other request line, however malformed, goes on to serveStatic's checks.
  const match = /^\/exports\/([A-Za-z0-9_-]{16,64})(?:\?|$)/.exec(request.url ?? '');
  if (!match || request.method !== 'GET') return false;
  const download = workbench.takeDownload(match[1] ?? '');
  if (!download) {
    response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('This export link was used already or has expired: export again');
    return true;
  }
  response.writeHead(200, {
    'Content-Type': 'text/csv; charset=utf-8',
    'Content-Disposition': `attachment; filename="${download.fileName.replace(/[^\w.-]/g, '_')}"`,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  download.stream(response).catch((error: unknown) => log(`dwb serve: export download failed: ${describe(error)}`));
  return true;
}

function serveClient(client: WebSocket, workbench: Workbench, replies: SessionReplies, log: ServerLog): void {
  // ws closes the socket itself (1009 too big, 1007 bad UTF-8, 1002 bad frame); this only records it.
  client.on('error', (error) => log(`dwb serve: closed a WebSocket client: ${describe(error)}`));
  const sendText = (text: string): void => {
    if (client.readyState === client.OPEN) client.send(text);
  };
  const send = (message: ResponseMessage | EventMessage): void => {
    const text = client.readyState === client.OPEN ? messageText(message, log) : null;
    if (text !== null) client.send(text);
  };
  const unsubscribe = workbench.subscribe((event, payload) => send({ event, payload }));
  client.on('close', unsubscribe);
  client.on('message', (data, isBinary) => {
    try {
      const frame = readRequestFrame(data, isBinary);
      if (!frame.ok) {
        send({ id: frame.id, ok: false, error: new WorkbenchError('invalid-request', frame.message).toJSON() });
        return;
      }
      const { id, method, params } = frame.request;
      const errorText = (error: unknown): string => replyText({ id, ok: false, error: WorkbenchError.from(error).toJSON() }, log);
      // Answered at most once per id: a repeat gets the first reply (or waits for it) and does not run again.
      replies
        .answer(
          frame.request,
          () =>
            Promise.resolve()
              .then(() => workbench.call(method, params))
              .then((result) => replyText({ id, ok: true, result }, log), errorText),
          errorText,
        )
        .then(sendText)
        .catch((error: unknown) => log(`dwb serve: reply to ${method} failed: ${describe(error)}`));
    } catch (error) {
      log(`dwb serve: WebSocket message failed: ${describe(error)}`);
      send({ id: -1, ok: false, error: WorkbenchError.from(error).toJSON() });
    }
  });
}

/** A message as JSON text, or null for an event JSON cannot carry (a BigInt, a cycle), which is not sent. */
function messageText(message: ResponseMessage | EventMessage, log: ServerLog): string | null {
  try {
    return JSON.stringify(message);
  } catch (error) {
    log(`dwb serve: could not serialize a message: ${describe(error)}`);
    return 'id' in message ? JSON.stringify({ id: message.id, ok: false, error: new WorkbenchError('internal', 'The result could not be sent over the WebSocket').toJSON() }) : null;
  }
}

/** A reply as JSON text: a result JSON cannot carry still gives the caller an answer. */
function replyText(message: ResponseMessage, log: ServerLog): string {
  return messageText(message, log) as string;
}

function describe(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.replace(/\s+/g, ' ').slice(0, 300);
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
