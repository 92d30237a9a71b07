import { z } from 'zod';

/** A GGUF model file the analyst added, as read from its header, and whether it is loaded. */
export const localModelSchema = z.object({
  id: z.string(),
  path: z.string(),
  name: z.string(),
  sizeBytes: z.number(),
  architecture: z.string(),
  quantization: z.string(),
  contextLength: z.number().nullable(),
  /** The chat template in the file; null for a base model without one. */
  chatTemplate: z.string().nullable(),
  addedAt: z.string(),
  state: z.enum(['unloaded', 'loading', 'loaded']),
  /** 0…1 while loading. */
  progress: z.number().nullable(),
  /** How it runs, once loaded. */
  /** `threadsAuto`: the count was measured (`threads: auto`), with the tokens/s of each count tried. */
  loaded: z.object({ contextSize: z.number(), threads: z.number(), threadsAuto: z.boolean(), threadRates: z.record(z.string(), z.number()), gpu: z.union([z.string(), z.literal(false)]), loadMs: z.number() }).nullable(),
});
export type LocalModel = z.infer<typeof localModelSchema>;

export const localModelsViewSchema = z.object({
  models: z.array(localModelSchema),
  /** The model decision runs use instead of the HTTP endpoint; null: the endpoint. */
  selectedId: z.string().nullable(),
  /** Threads used when none are set (the machine's available parallelism). */
  defaultThreads: z.number(),
});
export type LocalModelsView = z.infer<typeof localModelsViewSchema>;
