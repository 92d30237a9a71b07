import { z } from 'zod';

/**
 * What a scripted conversation is made of. A script is a list of turns; each request to
 * `POST /v1/chat/completions` takes the next turn, in order, whatever it asks — so a test
 * scripts plan → query → query → replan → answer as the model would have answered it.
 */

/** A tool call the scripted model makes. */
export interface ScriptedToolCall {
  /** Defaults to `call_<turn>_<position>`. */
  id?: string;
  name: string;
  /** An object is sent as its JSON; a string is sent as is (so tests can send malformed JSON). */
  arguments: string | Record<string, unknown>;
}

/** Token counts to report; `totalTokens` defaults to the sum. */
export interface ScriptedUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens?: number;
}

/** An HTTP failure instead of an answer. */
export interface ScriptedFailure {
  status: number;
  /** Goes into the OpenAI-style body `{"error": {"message": …}}`. */
  message?: string;
  /** Replaces the whole body: an object is sent as JSON, a string as is. */
  body?: unknown;
  /** E.g. `{ 'retry-after': '1' }` or `{ 'retry-after-ms': '20' }`. */
  headers?: Record<string, string>;
}

/** A body sent as is, to play a broken server. */
export interface ScriptedRawBody {
  status?: number;
  /** Defaults to `application/json`. */
  contentType?: string;
  body: string;
}

/** One answer of the scripted model, or one misbehaviour of the scripted server. */
export interface ScriptedTurn {
  /** Named in failure messages. */
  label?: string;
  /**
   * Which request takes this turn. Without it a turn is taken in script order; with it, a request
   * takes the first unused turn whose `when` holds — every string appears in its messages, or
   * the predicate says yes — so requests made at the same time (a plan graph's level) find
   * their answers whatever order they arrive in.
   */
  when?: string | string[] | ((request: WireChatRequest) => boolean);

  // --- The answer (streamed as SSE when the request asks for `stream: true`) ---
  content?: string;
  /** The exact streamed pieces of `content` (default: split at word boundaries). */
  contentChunks?: string[];
  toolCalls?: ScriptedToolCall[];
  /** Streamed argument pieces are this many characters long (default 7), so they split mid-token. */
  argumentChunkSize?: number;
  /** Default: `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: string;
  /** Default: estimated from the text (about 4 characters a token); null sends no usage at all. */
  usage?: ScriptedUsage | null;
  /** Default: the model the request named. */
  model?: string;

  // --- Timing ---
  /** Wait this long before answering (to trigger client timeouts). */
  delayMs?: number;
  /** Answer only once this settles (after `delayMs`), e.g. when the test has pressed a button. */
  holdUntil?: Promise<unknown>;
  /** Wait this long between streamed chunks. */
  chunkDelayMs?: number;
  /** Send this many chunks (or, unstreamed, the headers), then go silent without closing. */
  stallAfterChunks?: number;

  // --- Failures ---
  fail?: ScriptedFailure;
  /** Destroy the socket before answering, or halfway through the answer. */
  dropConnection?: 'before-response' | 'mid-response';
  /** Send this instead of a well-formed answer (garbage JSON, HTML error pages, broken SSE). */
  raw?: ScriptedRawBody;

  // --- Assertions on the request (a failure answers HTTP 400 and lands in `server.failures`) ---
  /** Return a message (or throw, e.g. with vitest's `expect`) to fail the turn. */
  expect?: (request: ReceivedChatRequest) => string | undefined | void;
  /** Each string must appear in the tool results that answer the model's last turn. */
  expectToolResultContains?: string | string[];
  /** Each string must appear in the last message of the request. */
  expectLastMessageContains?: string | string[];
  /** The names of the tools offered, exactly (`[]`: no tools at all). */
  expectTools?: string[];
  /** Whether the request must ask for a stream. */
  expectStream?: boolean;
}

/** A turn, or a function that builds the turn from the request it answers. */
export type ScriptStep = ScriptedTurn | ((request: ReceivedChatRequest) => ScriptedTurn);

/** Server-wide behaviour. */
export interface ScriptedServerOptions {
  /** Ids listed by `GET /v1/models`; null makes that route answer 404 like servers without it. */
  models?: string[] | null;
  /** When set, requests without `Authorization: Bearer <key>` get a 401 (no turn is used). */
  requireApiKey?: string;
  /** Play a server without tool calling: any request with `tools` gets a 400 (no turn is used). */
  rejectTools?: boolean;
  /** Play a server that knows tools but not `tool_choice: "required"`: such a request gets a 400 (no turn is used). */
  rejectToolChoice?: boolean;
  /** Play a server without structured output: any request with `response_format` gets a 400 (no turn is used). */
  rejectResponseFormat?: boolean;
  /** Play a server that takes `response_format` but ignores it: the CLI's probe gets prose (turns are served as scripted). */
  ignoreResponseFormat?: boolean;
  /**
   * Play an endpoint that honours `response_format` JSON schemas and ONLY fills the schemas and
   * tools it is offered: a turn's JSON is served under a schema only if it fits it (else a
   * failure), a tool call only if that tool was offered, and JSON asked for in plain text
   * comes back garbled (see `structured.ts`).
   */
  structuredOnly?: boolean;
}

/** A message as it arrived on the wire. */
export const wireMessageSchema = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.null(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))]).optional(),
  tool_calls: z
    .array(z.looseObject({ id: z.string(), type: z.string(), function: z.object({ name: z.string(), arguments: z.string() }) }))
    .optional(),
  tool_call_id: z.string().optional(),
});
export type WireMessage = z.infer<typeof wireMessageSchema>;

/** A chat completion request body as it arrived; unknown fields are kept. */
export const wireChatRequestSchema = z.looseObject({
  model: z.string(),
  messages: z.array(wireMessageSchema).min(1),
  tools: z
    .array(z.looseObject({ type: z.string(), function: z.looseObject({ name: z.string(), description: z.string().optional(), parameters: z.unknown() }) }))
    .optional(),
  tool_choice: z.unknown().optional(),
  /** Structured output as asked for, e.g. `{type: 'json_schema', json_schema: {name, schema, strict}}`. */
  response_format: z.looseObject({ type: z.string(), json_schema: z.looseObject({ name: z.string(), schema: z.unknown() }).optional() }).optional(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  temperature: z.number().nullish(),
  max_tokens: z.number().nullish(),
  max_completion_tokens: z.number().nullish(),
});
export type WireChatRequest = z.infer<typeof wireChatRequestSchema>;

/** Every request the server received, in arrival order. */
export interface ReceivedRequest {
  /** 0-based arrival order over all requests. */
  index: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  rawBody: string;
  /** The parsed chat completion request (chat requests with a valid body only). */
  chat: WireChatRequest | null;
  /** The script turn this request took, or null (models listing, rejected before a turn). */
  turnIndex: number | null;
  /** Epoch milliseconds. */
  receivedAt: number;
  /** Epoch milliseconds when the answer was completely sent; null until then (or when the client left first). */
  answeredAt: number | null;
  /** The HTTP status sent, once sent. */
  status: number | null;
  /** True when the client went away before the answer was complete (a cancel or a timeout). */
  clientDisconnected: boolean;
}

/** A received chat completion request. */
export type ReceivedChatRequest = ReceivedRequest & { chat: WireChatRequest };

/** The text of a wire message, whether sent as a string or as content parts. */
export function messageText(message: WireMessage): string {
  if (typeof message.content === 'string') return message.content;
  if (Array.isArray(message.content)) return message.content.map((part) => part.text ?? '').join('');
  return '';
}

/**
 * The messages that answer the model's last turn: everything after the last assistant
 * message, tool messages (native tools) or user messages (text mode).
 */
export function toolResultsOf(request: ReceivedChatRequest): WireMessage[] {
  const messages = request.chat.messages;
  let lastAssistant = -1;
  messages.forEach((message, index) => {
    if (message.role === 'assistant') lastAssistant = index;
  });
  if (lastAssistant < 0) return [];
  return messages.slice(lastAssistant + 1).filter((message) => message.role === 'tool' || message.role === 'user');
}
