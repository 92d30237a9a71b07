import { WorkbenchError } from '../../../contract/errors';
import type { ChatMessage, ConstrainedBy, ModelProvider, ModelUsage, OutputConstraint } from '../../../llm/types';

/**
 * Every model call of a DeLLMa run goes through here, tagged with its purpose
 * (`dellma.forecast`, `dellma.rank`, `dellma.zero-shot`, …) and the problem it serves, so the
 * run record says which transcript exchange was which. The transcript itself (the wrapped
 * provider's recording) holds the full requests and responses for replay.
 */
export type CallPurpose = 'dellma.candidates' | 'dellma.shortlist' | 'dellma.retrieve' | 'dellma.forecast' | 'dellma.rank' | 'dellma.zero-shot' | 'dellma.cot-factors' | 'dellma.cot-likelihoods' | 'dellma.cot-decision' | 'dellma.self-consistency';

export interface CallRecord {
  /** Order in which calls were made in this run (0-based); equals the exchange index of a transcript recorded around the same provider. */
  sequence: number;
  purpose: CallPurpose;
  /** Problem id, or null for calls shared by every problem (the forecast). */
  problem: number | null;
  /** Which attempt of the same step (0: first; 1…: re-asked after an unusable answer). */
  attempt: number;
  temperature: number;
  promptChars: number;
  content: string | null;
  usage: ModelUsage | null;
  latencyMs: number | null;
  error: { code: string; message: string } | null;
  /** How the provider held the reply to its schema (`none`: not at all); absent for a call that failed. */
  constrained?: ConstrainedBy;
  /** The model name the server put in its response; absent for a call that failed. */
  servedModel?: string;
}

/** Per-call options: sampling, and the JSON schema of the reply when the step parses one. */
export interface CallOptions {
  temperature: number;
  maxTokens?: number;
  output?: OutputConstraint;
}

export interface ModelCaller {
  call(purpose: CallPurpose, problem: number | null, attempt: number, messages: ChatMessage[], options: CallOptions): Promise<string>;
  readonly calls: CallRecord[];
}

/**
 * `greedyTemperature` replaces the temperature of the calls the paper makes greedily (at 0),
 * for `--temperature`; a call with a temperature of its own (self-consistency's) keeps it.
 */
export function createModelCaller(provider: ModelProvider, options: { signal?: AbortSignal; greedyTemperature?: number } = {}): ModelCaller {
  const calls: CallRecord[] = [];
  return {
    calls,
    async call(purpose, problem, attempt, messages, asked) {
      const callOptions = asked.temperature === 0 && options.greedyTemperature !== undefined ? { ...asked, temperature: options.greedyTemperature } : asked;
      const record: CallRecord = {
        sequence: calls.length,
        purpose,
        problem,
        attempt,
        temperature: callOptions.temperature,
        promptChars: messages.reduce((sum, message) => sum + message.content.length, 0),
        content: null,
        usage: null,
        latencyMs: null,
        error: null,
      };
      calls.push(record);
      try {
        const response = await provider.generate(
          { messages, temperature: callOptions.temperature, ...(callOptions.maxTokens ? { maxTokens: callOptions.maxTokens } : {}), ...(callOptions.output ? { output: callOptions.output } : {}) },
          options.signal ? { signal: options.signal } : {},
        );
        record.content = response.content;
        record.usage = response.usage;
        record.latencyMs = response.latencyMs;
        record.constrained = response.constrained ?? 'none';
        record.servedModel = response.model;
        return response.content;
      } catch (error) {
        const failure = WorkbenchError.from(error);
        record.error = { code: failure.code, message: failure.message };
        throw failure;
      }
    },
  };
}

/**
 * The JSON object in a model's answer: the whole text, or a ```json fenced block, or the
 * span from the first `{` to the last `}`. Null when none of them parses to an object.
 */
export function extractJsonObject(text: string): Record<string, unknown> | null {
  const candidates = [text.trim()];
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  if (fenced?.[1]) candidates.push(fenced[1].trim());
  const first = text.indexOf('{');
  const last = text.lastIndexOf('}');
  if (first >= 0 && last > first) candidates.push(text.slice(first, last + 1));
  for (const candidate of candidates) {
    try {
      const value: unknown = JSON.parse(candidate);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // try the next reading
    }
  }
  return null;
}
