import { WorkbenchError, type EventMessage, type ResponseMessage, type WorkbenchClient } from '../../src-main/contract';
import { createEventHub } from './event-hub';

type ConnectionState = 'connecting' | 'open' | 'closed';

/**
 * What the transport needs of a WebSocket: the browser's, or in tests one from the `ws` package
 * (which speaks the same API), so the client's own logic runs against the real server.
 */
export interface ClientSocket {
  readonly readyState: number;
  send(data: string): void;
  addEventListener(type: 'open' | 'close', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
}

/** `WebSocket.OPEN`, which a socket of the `ws` package shares. */
const socketOpen = 1;

interface PendingRequest {
  method: string;
  payload: string;
  /** Sent on a socket: its reply may be lost with that socket, but the request is never sent again. */
  sent: boolean;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** A random session id for the server's reply cache (16 bytes as hex). */
function newSessionId(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * Browser mode's transport: the contract over one WebSocket to `dwb serve`, reconnecting
 * after a drop. Requests made while disconnected wait for the connection and are sent once it
 * is back. A request already sent is never sent again: its reply may have been lost with the
 * socket after the server carried it out (a re-sent `notebooks/create` made a second notebook),
 * so it fails with `connection-failed` instead, saying so. The socket names a random session, under which the
 * server answers each request id at most once.
 */
export function createWebSocketClient(options: {
  /** The API address with its token; the client adds its session. */
  url: string;
  onStateChange?: (state: ConnectionState) => void;
  /** Opens the socket; the browser's WebSocket unless given. */
  openSocket?: (url: string) => ClientSocket;
}): WorkbenchClient {
  const hub = createEventHub();
  const pending = new Map<number, PendingRequest>();
  const url = `${options.url}${options.url.includes('?') ? '&' : '?'}session=${newSessionId()}`;
  const openSocket = options.openSocket ?? ((address: string): ClientSocket => new WebSocket(address));
  let nextId = 1;
  let socket: ClientSocket;
  let retryDelay = 250;

  const send = (request: PendingRequest): void => {
    socket.send(request.payload);
    request.sent = true;
  };

  const connect = (): void => {
    options.onStateChange?.('connecting');
    const current = openSocket(url);
    socket = current;
    current.addEventListener('open', () => {
      retryDelay = 250;
      options.onStateChange?.('open');
      for (const request of pending.values()) if (!request.sent) send(request);
    });
    current.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as ResponseMessage | EventMessage;
      if ('event' in message) {
        hub.dispatch(message);
        return;
      }
      const request = pending.get(message.id);
      if (!request) return;
      pending.delete(message.id);
      if (message.ok) request.resolve(message.result);
      else request.reject(WorkbenchError.revive(message.error));
    });
    current.addEventListener('close', () => {
      options.onStateChange?.('closed');
      for (const [id, request] of pending) {
        if (!request.sent) continue;
        pending.delete(id);
        request.reject(
          new WorkbenchError('connection-failed', `The connection to the workbench dropped before ${request.method} was answered: it may have been carried out, so look before doing it again`),
        );
      }
      setTimeout(connect, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 5000);
    });
  };
  connect();

  return {
    invoke: (method, params) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        const request: PendingRequest = { method, payload: JSON.stringify({ id, method, params }), sent: false, resolve: resolve as (value: unknown) => void, reject };
        pending.set(id, request);
        if (socket.readyState === socketOpen) send(request);
      }),
    on: hub.on,
  };
}
