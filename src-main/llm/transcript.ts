import { parseLocalModelSettings, type LocalModelSettingsInput } from './local/local-settings';
import type { z } from 'zod';
import { WorkbenchError } from '../contract/errors';
import { wellFormed } from '../audit/well-formed';
import { parseProviderSettings, publicSettings, type ProviderSettingsInput } from './settings';
import {
  transcriptExchangeSchema,
  transcriptFormat,
  transcriptHeaderSchema,
  transcriptVersion,
  type TranscriptExchange,
  type TranscriptHeader,
  type TranscriptLine,
} from './transcript-schema';
import type { ChatMessage, ModelProvider, ModelRequest, ModelResponse, ToolCall } from './types';

export { transcriptFormat, transcriptVersion, type TranscriptExchange, type TranscriptHeader, type TranscriptLine };

/**
 * A transcript is JSON Lines: a header line, then one line per `generate` call (see
 * src-main/llm/README.md, which is the public description of the format).
 */
export interface Transcript {
  header: TranscriptHeader;
  /** Sorted by `index`, which runs 0, 1, 2, … without gaps. */
  exchanges: TranscriptExchange[];
}

/** Receives each line as it is produced; typically appends `writeTranscriptLine(line)` to a file. */
export type TranscriptSink = (line: TranscriptLine) => void;

/** Options of `recordingProvider`. */
export interface RecordingOptions {
  /** Written to the header without the API key (an HTTP server's settings, or a local model's). */
  settings?: ProviderSettingsInput | LocalModelSettingsInput;
  /** ISO-8601 timestamps; injected so tests are deterministic. */
  now?: () => string;
  /**
   * Continue a transcript that already holds this many exchanges (a run resumed after a
   * restart): no second header is written and indexes go on from there.
   */
  continueAt?: number;
}

function headerSettings(settings: RecordingOptions['settings']): Record<string, unknown> | null {
  if (!settings) return null;
  // A local model has no key and no URL: its settings are recorded as they are.
  if ('modelPath' in settings) return { ...parseLocalModelSettings(settings) };
  return publicSettings(parseProviderSettings(settings));
}

/** One line of the file: the JSON of `line` and a newline. */
export function writeTranscriptLine(line: TranscriptLine): string {
  // Lone surrogates (a model's "\ud83d", a text cut inside a pair) become U+FFFD: bundles carry these lines.
  return `${JSON.stringify(wellFormed(line))}\n`;
}

/**
 * Wraps a provider so every call — answered or failed — is handed to `sink` as an exchange
 * line. The header goes to the sink at once, so a run with no calls still leaves a valid file.
 * Requests are copied when the call starts, because callers keep appending to their message
 * arrays; the wrapped provider's answers and errors pass through unchanged.
 */
export function recordingProvider(inner: ModelProvider, sink: TranscriptSink, options: RecordingOptions = {}): ModelProvider {
  const now = options.now ?? (() => new Date().toISOString());
  if (options.continueAt === undefined) {
    sink({
      type: 'header',
      format: transcriptFormat,
      version: transcriptVersion,
      createdAt: now(),
      provider: inner.description,
      settings: headerSettings(options.settings),
    });
  }
  let nextIndex = options.continueAt ?? 0;

  return {
    description: inner.description,
    async generate(request, generateOptions) {
      const index = nextIndex++;
      const startedAt = now();
      const recordedRequest = copyRequest(request);
      let response: ModelResponse;
      try {
        response = await inner.generate(request, generateOptions);
      } catch (error) {
        const failure = WorkbenchError.from(error);
        // The model's failure matters more than a failure to record it: that one is not thrown.
        record(sink, { type: 'exchange', index, startedAt, endedAt: now(), request: recordedRequest, error: { code: failure.code, message: failure.message } }, false);
        throw failure;
      }
      record(sink, { type: 'exchange', index, startedAt, endedAt: now(), request: recordedRequest, response: copyResponse(response) }, true);
      return response;
    },
  };
}

function record(sink: TranscriptSink, line: TranscriptExchange, throwOnFailure: boolean): void {
  try {
    sink(line);
  } catch (error) {
    if (throwOnFailure) throw new WorkbenchError('internal', `Could not record the model exchange: ${WorkbenchError.from(error).message}`, { cause: error });
  }
}

/**
 * Parses a transcript file. Any problem is an `invalid-request` WorkbenchError that names the
 * line (1-based, as an editor counts) and what is wrong there; a newer format version is
 * `unsupported`. Blank lines are ignored.
 */
export function readTranscript(text: string): Transcript {
  let header: TranscriptHeader | null = null;
  const exchanges: TranscriptExchange[] = [];
  const lineOfIndex = new Map<number, number>();
  const lines = text.split(/\r?\n/);

  lines.forEach((line, position) => {
    const lineNumber = position + 1;
    if (line.trim() === '') return;
    const fail = (what: string, code: 'invalid-request' | 'unsupported' = 'invalid-request') =>
      new WorkbenchError(code, `Transcript line ${lineNumber}: ${what}`);

    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw fail(`not valid JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    const type = typeof value === 'object' && value !== null && 'type' in value ? value.type : undefined;

    if (header === null) {
      if (type !== 'header') throw fail(`the first line must be the header ({"type":"header",…}), found ${describeType(type)}`);
      if (typeof value === 'object' && value !== null && 'format' in value && value.format !== transcriptFormat) {
        throw fail(`not a Decision Workbench LLM transcript (format ${JSON.stringify(value.format)}, expected "${transcriptFormat}")`);
      }
      if (typeof value === 'object' && value !== null && 'version' in value && typeof value.version === 'number' && value.version > transcriptVersion) {
        throw fail(`format version ${value.version} is newer than this workbench reads (${transcriptVersion})`, 'unsupported');
      }
      header = parseLine(transcriptHeaderSchema, value, fail);
      return;
    }
    if (type === 'header') throw fail('a second header; a transcript has exactly one, on its first line');
    if (type !== 'exchange') throw fail(`"type" must be "exchange", found ${describeType(type)}`);
    const exchange = parseLine(transcriptExchangeSchema, value, fail);
    const previous = lineOfIndex.get(exchange.index);
    if (previous !== undefined) throw fail(`exchange index ${exchange.index} was already used on line ${previous}`);
    lineOfIndex.set(exchange.index, lineNumber);
    exchanges.push(exchange);
  });

  if (header === null) throw new WorkbenchError('invalid-request', 'Transcript line 1: the file is empty; the first line must be the header');
  exchanges.sort((a, b) => a.index - b.index);
  // Concurrent calls may finish out of order, so lines may be too; gaps are still an error.
  exchanges.forEach((exchange, position) => {
    if (exchange.index !== position) {
      throw new WorkbenchError('invalid-request', `Transcript line ${lineOfIndex.get(exchange.index)}: exchange index ${exchange.index}, but no exchange ${position} comes before it (indexes run 0, 1, 2, … without gaps)`);
    }
  });
  return { header, exchanges };
}

function parseLine<T>(schema: z.ZodType<T>, value: unknown, fail: (what: string) => WorkbenchError): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue && issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
  throw fail(`${path}${issue?.message ?? 'malformed line'}`);
}

function describeType(type: unknown): string {
  return type === undefined ? 'a line without "type"' : `type ${JSON.stringify(type)}`;
}

/** A plain-data copy holding only the defined fields, so recorded and replayed requests compare exactly. */
export function copyMessage(message: ChatMessage): ChatMessage {
  return {
    role: message.role,
    content: message.content,
    ...(message.toolCalls && message.toolCalls.length > 0 ? { toolCalls: message.toolCalls.map(copyToolCall) } : {}),
    ...(message.toolCallId !== undefined ? { toolCallId: message.toolCallId } : {}),
  };
}

function copyToolCall(call: ToolCall): ToolCall {
  return { id: call.id, name: call.name, arguments: call.arguments };
}

function copyRequest(request: ModelRequest): TranscriptExchange['request'] {
  return {
    messages: request.messages.map(copyMessage),
    ...(request.tools ? { tools: request.tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: structuredClone(tool.parameters) })) } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.maxTokens !== undefined ? { maxTokens: request.maxTokens } : {}),
    ...(request.output ? { output: structuredClone(request.output) } : {}),
    ...(request.stop !== undefined ? { stop: [...request.stop] } : {}),
  };
}

export function copyResponse(response: ModelResponse): ModelResponse {
  return {
    content: response.content,
    toolCalls: response.toolCalls.map(copyToolCall),
    finishReason: response.finishReason,
    usage: response.usage ? { ...response.usage } : null,
    latencyMs: response.latencyMs,
    model: response.model,
    ...(response.constrained ? { constrained: response.constrained } : {}),
  };
}
