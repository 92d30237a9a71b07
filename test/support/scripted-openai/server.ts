import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkExpectations } from './expectations';
import { messageText, wireChatRequestSchema, type ReceivedChatRequest, type ReceivedRequest, type ScriptedServerOptions, type ScriptedTurn, type ScriptStep, type WireChatRequest } from './script';
import { isStructuredOutputProbe, probeAnswer, structuredOnlyTurn } from './structured';
import { chunkObjects, completionObject, errorBody, resolveAnswer, sseDone, sseEvent, type ResolvedAnswer } from './wire';

/** A running scripted server. */
export interface ScriptedOpenAiServer {
  /** The API root to give a client, e.g. `http://127.0.0.1:40123/v1`. */
  baseUrl: string;
  port: number;
  /** Every request received, in arrival order (live: it grows as requests arrive). */
  requests: ReceivedRequest[];
  /** The chat completion requests among them. */
  chatRequests(): ReceivedChatRequest[];
  /** Expectation failures and requests that found no turn left. */
  failures: string[];
  /** The CLI's structured-output probes, answered by the server itself (kept apart: they take no turn and are not in `requests`). */
  probes: { body: unknown; status: number }[];
  /** Turns not yet used. */
  remainingTurns(): number;
  /** Throws unless every turn was used and every expectation held. */
  verify(): void;
  /** Stops listening and cuts every open connection (stalled streams included). */
  close(): Promise<void>;
}

/**
 * Starts an OpenAI-compatible server on 127.0.0.1 (random port) that answers
 * `POST /v1/chat/completions` from `script`, one turn per request in order, and
 * `GET /v1/models` from `options.models`. See `ScriptedTurn` for what a turn can do.
 */
export async function startScriptedOpenAiServer(script: ScriptStep[], options: ScriptedServerOptions = {}): Promise<ScriptedOpenAiServer> {
  const requests: ReceivedRequest[] = [];
  const failures: string[] = [];
  const probes: { body: unknown; status: number }[] = [];
  const lifetime = new AbortController();
  const used = new Array<boolean>(script.length).fill(false);
  const unused = (): number => used.filter((taken) => !taken).length;

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      failures.push(`scripted server crashed: ${error instanceof Error ? error.stack : String(error)}`);
      if (!res.headersSent) sendJson(res, 500, errorBody(500, 'scripted server crashed'));
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawBody = await readBody(req);
    if (answerProbe(rawBody, req, res)) return;
    const record: ReceivedRequest = {
      index: requests.length,
      method: req.method ?? 'GET',
      path: (req.url ?? '/').split('?')[0] ?? '/',
      headers: flattenHeaders(req),
      rawBody,
      chat: null,
      turnIndex: null,
      receivedAt: Date.now(),
      answeredAt: null,
      status: null,
      clientDisconnected: false,
    };
    requests.push(record);
    const requestLife = new AbortController();
    const stopRequest = () => requestLife.abort();
    lifetime.signal.addEventListener('abort', stopRequest, { once: true });
    res.on('finish', () => {
      record.answeredAt = Date.now();
    });
    res.on('close', () => {
      if (!res.writableFinished) record.clientDisconnected = true;
      lifetime.signal.removeEventListener('abort', stopRequest);
      requestLife.abort();
    });
    const respond = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      sendJson(res, status, body, headers);
    };

    if (options.requireApiKey !== undefined && req.headers.authorization !== `Bearer ${options.requireApiKey}`) {
      return respond(401, errorBody(401, 'Incorrect API key provided.'));
    }
    if (record.method === 'GET' && record.path === '/v1/models') {
      if (options.models === null) return respond(404, errorBody(404, 'Not found'));
      const created = Math.floor(Date.now() / 1000);
      const models = options.models ?? ['scripted-model'];
      return respond(200, { object: 'list', data: models.map((id) => ({ id, object: 'model', created, owned_by: 'scripted' })) });
    }
    if (record.method !== 'POST' || record.path !== '/v1/chat/completions') {
      return respond(404, errorBody(404, `No route ${record.method} ${record.path}`));
    }

    let json: unknown;
    try {
      json = JSON.parse(rawBody);
    } catch {
      return respond(400, errorBody(400, 'The body is not valid JSON.'));
    }
    const parsed = wireChatRequestSchema.safeParse(json);
    if (!parsed.success) return respond(400, errorBody(400, `Invalid chat completion request: ${parsed.error.issues[0]?.message ?? 'unknown'}`));
    // The same object as in `requests`, typed as a chat request from here on.
    const chatRequest: ReceivedChatRequest = Object.assign(record, { chat: parsed.data });
    if (options.rejectTools && (parsed.data.tools?.length ?? 0) > 0) {
      return respond(400, errorBody(400, 'This server does not support tools.'));
    }
    if (options.rejectToolChoice && parsed.data.tool_choice !== undefined && parsed.data.tool_choice !== 'auto') {
      return respond(400, errorBody(400, `tool_choice ${JSON.stringify(parsed.data.tool_choice)} is not supported.`));
    }
    if (options.rejectResponseFormat && parsed.data.response_format !== undefined) {
      return respond(400, errorBody(400, `response_format ${parsed.data.response_format.type} is not supported.`));
    }

    // The first unused turn, in script order, that this request matches (a turn without `when` matches any).
    const turnIndex = script.findIndex((candidate, index) => !used[index] && matches(candidate, parsed.data));
    const step = script[turnIndex];
    if (turnIndex < 0 || !step) {
      const failure =
        unused() === 0
          ? `request ${record.index} found no turn left (the script has ${script.length})`
          : `request ${record.index} matched none of the ${unused()} turns left (its last message: ${JSON.stringify(lastMessageText(parsed.data).slice(0, 200))})`;
      failures.push(failure);
      return respond(400, errorBody(400, `Scripted server: ${failure}`));
    }
    used[turnIndex] = true;
    chatRequest.turnIndex = turnIndex;
    // A throwing step is a failed expectation (a 400, never retried), not a server crash (a 500,
    // which the client would retry against the next turn).
    let turn: ScriptedTurn;
    try {
      turn = typeof step === 'function' ? step(chatRequest) : step;
    } catch (error) {
      turn = { expect: () => `the step function threw: ${error instanceof Error ? error.message : String(error)}` };
    }
    if (options.structuredOnly) {
      const served = structuredOnlyTurn(turn, parsed.data);
      if ('failure' in served) {
        const message = `turn ${turnIndex}${turn.label ? ` (${turn.label})` : ''}: ${served.failure}`;
        failures.push(message);
        return respond(400, errorBody(400, `Scripted expectation failed at ${message}`));
      }
      turn = served.turn;
    }
    const failure = checkExpectations(turn, chatRequest);
    if (failure) {
      const message = `turn ${turnIndex}${turn.label ? ` (${turn.label})` : ''}: ${failure}`;
      failures.push(message);
      return respond(400, errorBody(400, `Scripted expectation failed at ${message}`));
    }
    await answerTurn(turn, turnIndex, chatRequest, res, requestLife.signal);
  }

  /** The CLI's structured-output probe, answered here whatever the script says; false for any other request. */
  function answerProbe(rawBody: string, req: IncomingMessage, res: ServerResponse): boolean {
    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch {
      return false;
    }
    if (!isStructuredOutputProbe(body)) return false;
    if (options.requireApiKey !== undefined && req.headers.authorization !== `Bearer ${options.requireApiKey}`) {
      probes.push({ body, status: 401 });
      sendJson(res, 401, errorBody(401, 'Incorrect API key provided.'));
      return true;
    }
    if (options.rejectResponseFormat) {
      probes.push({ body, status: 400 });
      sendJson(res, 400, errorBody(400, 'response_format json_schema is not supported.'));
      return true;
    }
    probes.push({ body, status: 200 });
    const model = (body as { model?: unknown }).model;
    sendJson(res, 200, completionObject(resolveAnswer({ content: probeAnswer(body, options) }, { model: typeof model === 'string' ? model : 'scripted', messages: [{ role: 'user', content: '' }] }, probes.length)));
    return true;
  }

  async function answerTurn(turn: ScriptedTurn, turnIndex: number, request: ReceivedChatRequest, res: ServerResponse, signal: AbortSignal): Promise<void> {
    const record = request;
    if (turn.delayMs) await sleep(turn.delayMs, signal);
    if (turn.holdUntil) await Promise.race([turn.holdUntil, sleep(Number.POSITIVE_INFINITY, signal)]);
    if (signal.aborted) return;
    if (turn.dropConnection === 'before-response') {
      res.socket?.destroy();
      return;
    }
    if (turn.fail) {
      const body = turn.fail.body ?? errorBody(turn.fail.status, turn.fail.message ?? `Scripted failure ${turn.fail.status}`);
      record.status = turn.fail.status;
      if (typeof body === 'string') {
        res.writeHead(turn.fail.status, { 'content-type': 'text/plain', ...turn.fail.headers });
        res.end(body);
      } else {
        sendJson(res, turn.fail.status, body, turn.fail.headers);
      }
      return;
    }
    if (turn.raw) {
      record.status = turn.raw.status ?? 200;
      res.writeHead(record.status, { 'content-type': turn.raw.contentType ?? 'application/json' });
      res.end(turn.raw.body);
      return;
    }
    const answer = resolveAnswer(turn, request.chat, turnIndex);
    record.status = 200;
    if (request.chat.stream) await streamAnswer(turn, answer, request, res, signal);
    else await sendAnswer(turn, answer, res, signal);
  }

  async function sendAnswer(turn: ScriptedTurn, answer: ResolvedAnswer, res: ServerResponse, signal: AbortSignal): Promise<void> {
    const body = JSON.stringify(completionObject(answer));
    if (turn.stallAfterChunks !== undefined) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      await sleep(Number.POSITIVE_INFINITY, signal);
      return;
    }
    if (turn.dropConnection === 'mid-response') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
      res.write(body.slice(0, Math.floor(body.length / 2)), () => res.socket?.destroy());
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  }

  async function streamAnswer(turn: ScriptedTurn, answer: ResolvedAnswer, request: ReceivedChatRequest, res: ServerResponse, signal: AbortSignal): Promise<void> {
    const chunks = chunkObjects(answer, request.chat.stream_options?.include_usage === true);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    const dropAt = turn.dropConnection === 'mid-response' ? Math.max(1, Math.floor(chunks.length / 2)) : Number.POSITIVE_INFINITY;
    for (const [position, chunk] of chunks.entries()) {
      if (signal.aborted) return;
      if (position === turn.stallAfterChunks) {
        await sleep(Number.POSITIVE_INFINITY, signal);
        return;
      }
      if (position === dropAt) {
        res.socket?.destroy();
        return;
      }
      if (position > 0 && turn.chunkDelayMs) await sleep(turn.chunkDelayMs, signal);
      if (signal.aborted) return;
      res.write(sseEvent(chunk));
    }
    res.end(sseDone);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    failures,
    probes,
    chatRequests: () => requests.filter((request): request is ReceivedChatRequest => request.chat !== null),
    remainingTurns: unused,
    verify() {
      const problems = [...failures];
      if (unused() > 0) problems.push(`${unused()} of ${script.length} turns were never used`);
      if (problems.length > 0) throw new Error(`Scripted OpenAI server:\n- ${problems.join('\n- ')}`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        lifetime.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Whether a turn's `when` holds for a request: every string appears in the request's messages, or the predicate says yes. */
function matches(step: ScriptStep, chat: WireChatRequest): boolean {
  if (typeof step === 'function' || step.when === undefined) return true;
  if (typeof step.when === 'function') return step.when(chat);
  const text = chat.messages.map(messageText).join('\n');
  return (Array.isArray(step.when) ? step.when : [step.when]).every((needle) => text.includes(needle));
}

function lastMessageText(chat: WireChatRequest): string {
  const last = chat.messages[chat.messages.length - 1];
  return last ? messageText(last) : '';
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** Resolves after `ms`, or at once when `signal` aborts (a client gone, the server closing). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = Number.isFinite(ms) ? setTimeout(done, ms) : null;
    function done() {
      if (timer) clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
