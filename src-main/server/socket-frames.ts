import type { RawData } from 'ws';
import type { RequestMessage } from '../contract/transport';

/** The largest message a client may send; results can be large, but those go the other way. */
export const maxRequestBytes = 8 * 1024 * 1024;

/** Longer method names are not echoed back in errors: no request is named like that. */
const maxMethodLength = 100;

/** Close reasons for what `ws` refuses itself (it closes with the bare code otherwise). */
export const closeReasons: ReadonlyMap<number, string> = new Map([
  [1002, 'Malformed WebSocket frame'],
  [1007, 'Text frame is not valid UTF-8'],
  [1009, `Message larger than ${maxRequestBytes / 1024 / 1024} MiB`],
]);

/** A request frame read: the request, or the specific reason it is not one and the id to answer. */
export type ReadFrame = { ok: true; request: RequestMessage } | { ok: false; id: number; message: string };

/**
 * Reads one client frame as a contract request, never throwing. The reply to a frame without a
 * usable id goes to id -1 (the renderer never uses it), so the client still learns why.
 */
export function readRequestFrame(data: RawData, isBinary: boolean): ReadFrame {
  if (isBinary) return { ok: false, id: -1, message: 'Binary frames are not accepted: send each request as one JSON text frame' };
  const text = (Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data)).toString();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, id: -1, message: `Request is not JSON: ${(error as Error).message.slice(0, 120)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, id: -1, message: 'Request must be a JSON object with "id", "method" and "params"' };
  }
  const { id, method, params } = value as Record<string, unknown>;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) {
    return { ok: false, id: -1, message: 'Request "id" must be a whole number from 0 to 2^53 - 1' };
  }
  if (typeof method !== 'string') return { ok: false, id, message: 'Request "method" must be a string naming a request' };
  if (method.length > maxMethodLength) return { ok: false, id, message: `Unknown request (a method name of ${method.length} characters)` };
  return { ok: true, request: { id, method, params } };
}
