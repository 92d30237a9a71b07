import type { EventName, EventPayload, Method, Params, Result } from './api';

/**
 * What a client (the renderer, in either transport) sees of the services. The renderer is
 * written against this alone, so it never knows whether it talks over IPC or a WebSocket.
 */
export interface WorkbenchClient {
  invoke<M extends Method>(method: M, params: Params<M>): Promise<Result<M>>;
  /** Subscribes to a pushed event; returns the unsubscribe function. */
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
}

/** Wire messages shared by the IPC and WebSocket transports. */
export interface RequestMessage {
  id: number;
  method: string;
  params: unknown;
}
export type ResponseMessage =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: unknown };
export interface EventMessage {
  event: string;
  payload: unknown;
}
