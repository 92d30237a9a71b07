import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { WorkbenchError } from '../../contract/errors';

/** Settings of an in-process local model. Threads and context size default from the machine and the model. */
export const localModelSettingsSchema = z.object({
  /** Absolute path of the GGUF file. */
  modelPath: z.string().trim().min(1, 'modelPath must name a .gguf file'),
  /**
   * CPU threads for decoding. `auto` (the default, also when left out): the count that decodes
   * fastest on the machine as it is now, measured at load and again when the rate falls well
   * below it (a busy machine decodes faster with fewer threads than cores); a number is used as given.
   */
  threads: z.union([z.literal('auto'), z.number().int().positive().max(256)]).optional(),
  /** Context window in tokens; default: the model's own, at most 8192. */
  contextSize: z.number().int().min(256).max(1_048_576).optional(),
  /** `auto`: offload to a GPU when one is found; `off`: CPU only. */
  gpu: z.enum(['auto', 'off']).default('auto'),
  temperature: z.number().min(0).max(2).default(0.2),
  maxTokens: z.number().int().positive().default(1024),
  /**
   * Outer bound of one `generate` call, loading included. Generous on purpose: a slow but
   * progressing call on a busy machine is not stopped; `stallTimeoutMs` stops one that stalls.
   */
  requestTimeoutMs: z.number().int().positive().max(3_600_000).default(3_600_000),
  /** A call that produces no token (the first one included) for this long is stopped. */
  stallTimeoutMs: z.number().int().positive().max(3_600_000).default(60_000),
});

export type LocalModelSettings = z.output<typeof localModelSettingsSchema>;
export type LocalModelSettingsInput = z.input<typeof localModelSettingsSchema>;

export function parseLocalModelSettings(input: unknown): LocalModelSettings {
  const parsed = localModelSettingsSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  throw new WorkbenchError('invalid-request', `Invalid local model settings: ${where}${issue?.message ?? 'unknown problem'}`);
}

export function defaultThreads(): number {
  return availableParallelism();
}

/** The thread setting as the model process takes it: a count, or `auto` when none was given. */
export function threadSetting(settings: LocalModelSettings): number | 'auto' {
  return settings.threads ?? 'auto';
}
