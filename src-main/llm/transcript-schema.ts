import { z } from 'zod';
import { errorCodes } from '../contract/errors';

/** The `format` value of every transcript header. */
export const transcriptFormat = 'decision-workbench/llm-transcript';
/** The version this code writes, and the newest it reads. */
export const transcriptVersion = 1;

const toolCallSchema = z.object({ id: z.string(), name: z.string(), arguments: z.string() });

export const chatMessageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string(),
  toolCalls: z.array(toolCallSchema).optional(),
  toolCallId: z.string().optional(),
});

const toolSpecSchema = z.object({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) });

const usageSchema = z.object({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative(),
});

const timestampSchema = z.iso.datetime({ offset: true });

/** Line 1 of a transcript. */
export const transcriptHeaderSchema = z.object({
  type: z.literal('header'),
  format: z.literal(transcriptFormat),
  version: z.number().int().positive(),
  createdAt: timestampSchema,
  /** The recorded provider's description, e.g. `llama3.1:8b at http://127.0.0.1:11434/v1`. */
  provider: z.string(),
  /**
   * The provider settings as they were, without the API key; null when the recorder was not
   * given them. Kept as written (no defaults filled in) so a reader sees what was used.
   */
  settings: z
    .record(z.string(), z.unknown())
    .refine((settings) => !('apiKey' in settings), { message: 'a transcript must never hold an API key' })
    .nullable(),
});

/** Every later line: one `generate` call, answered or failed. */
export const transcriptExchangeSchema = z
  .object({
    type: z.literal('exchange'),
    /** 0 for the first call of the run, then 1, 2, … */
    index: z.number().int().nonnegative(),
    startedAt: timestampSchema,
    endedAt: timestampSchema,
    request: z.object({
      messages: z.array(chatMessageSchema),
      tools: z.array(toolSpecSchema).optional(),
      temperature: z.number().optional(),
      maxTokens: z.number().int().positive().optional(),
      output: z
        .union([
          z.object({ kind: z.literal('tool-call'), required: z.literal(true) }),
          z.object({ kind: z.literal('json'), name: z.string(), schema: z.record(z.string(), z.unknown()) }),
        ])
        .optional(),
      stop: z.array(z.string()).optional(),
    }),
    response: z
      .object({
        content: z.string(),
        toolCalls: z.array(toolCallSchema),
        finishReason: z.string(),
        usage: usageSchema.nullable(),
        latencyMs: z.number().nonnegative(),
        model: z.string(),
        constrained: z.enum(['grammar', 'tool-choice', 'json-schema', 'none']).optional(),
      })
      .optional(),
    error: z.object({ code: z.enum(errorCodes), message: z.string() }).optional(),
  })
  .refine((exchange) => (exchange.response === undefined) !== (exchange.error === undefined), {
    message: 'an exchange has exactly one of "response" and "error"',
  });

/** The first line of a transcript. */
export type TranscriptHeader = z.infer<typeof transcriptHeaderSchema>;
/** One recorded `generate` call. */
export type TranscriptExchange = z.infer<typeof transcriptExchangeSchema>;
/** Any line of a transcript. */
export type TranscriptLine = TranscriptHeader | TranscriptExchange;
