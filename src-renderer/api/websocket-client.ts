import { WorkbenchError, type EventMessage, type ResponseMessage, type WorkbenchClient } from '../../src-main/contract';
import { createEventHub } from './event-hub';

type ConnectionState = 'connecting' | 'open' | 'closed';

/**
 * Browser mode's transport: the contract over one WebSocket to `dwb serve`, reconnecting
 * after a drop. Requests made while disconnected wait for the connection rather than fail.
 */
export function createWebSocketClient(options: {
  url: string;
  onStateChange?: (state: ConnectionState) => void;
}): WorkbenchClient {
  const hub = createEventHub();
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void; payload: string }>();
  let nextId = 1;
  let socket: WebSocket;
  let retryDelay = 250;

  const connect = (): void => {
    options.onStateChange?.('connecting');
    socket = new WebSocket(options.url);
    socket.addEventListener('open', () => {
      retryDelay = 250;
      options.onStateChange?.('open');
      for (const request of pending.values()) socket.send(request.payload);
    });
    socket.addEventListener('message', (event: MessageEvent<string>) => {
      const message = JSON.parse(event.data) as ResponseMessage | EventMessage;
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
    socket.addEventListener('close', () => {
      options.onStateChange?.('closed');
      setTimeout(connect, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 5000);
    });
  };
  connect();

  return {
    invoke: (method, params) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        const payload = JSON.stringify({ id, method, params });
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject, payload });
        if (socket.readyState === WebSocket.OPEN) socket.send(payload);
      }),
    on: hub.on,
  };
}
