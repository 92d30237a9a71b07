/**
 * The record the benchmark keeps per question (DIR/<question-id>/result.json): how the run
 * ended, what it cost, the decision matched to a candidate, the simulator's verdict, flags
 * for questions without a meaningful unique answer, and the failure category with its
 * evidence. Its presence marks the question as decided, so a re-run skips it.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { runStatusSchema, techniqueIdSchema } from '../contract/run';

export const RESULT_FILE = 'result.json';

export const questionFlagSchema = z.enum(['tie', 'float-level', 'annotation-differs', 'no-improvement']);
export type QuestionFlag = z.infer<typeof questionFlagSchema>;

export const failureLabelSchema = z.object({
  category: z.enum(['CAN', 'MIS', 'DEEP', 'QUR', 'OTH', 'unlabelled']).nullable(),
  automatic: z.boolean(),
  evidence: z.array(z.string()),
});

export const questionResultSchema = z.object({
  format: z.literal('decision-workbench/benchmark-question'),
  version: z.literal(1),
  id: z.string(),
  scenario: z.enum(['locating', 'building']),
  technique: techniqueIdSchema,
  db: z.enum(['rdb', 'gdb']),
  /** The question's dump, as the questions file names it. */
  dump: z.string(),
  questionsFile: z.string(),
  /** How the run ended; null when it could not start (see `error`). */
  status: runStatusSchema.nullable(),
  message: z.string().nullable(),
  error: z.string().nullable(),
  match: z.object({
    raw: z.string().nullable(),
    matched: z.string().nullable(),
    rule: z.enum(['exact', 'normalized', 'contained', 'ambiguous', 'none', 'no-decision']),
    alternatives: z.array(z.string()),
  }),
  simulator: z
    .object({
      best: z.string(),
      tied: z.array(z.string()),
      annotation: z.string(),
      /** null when there is no runner-up. */
      margin: z.number().nullable(),
      candidateCount: z.number(),
      /** Rank of the matched decision (1 = best), null when unmatched. */
      rank: z.number().nullable(),
      notes: z.array(z.string()),
    })
    .nullable(),
  /** The matched decision is the simulator's best (compat rules). */
  correct: z.boolean(),
  /** The matched decision is among the candidates tied with the best. */
  correctWithTies: z.boolean(),
  flags: z.array(questionFlagSchema),
  steps: z.number(),
  promptTokens: z.number(),
  completionTokens: z.number(),
  totalTokens: z.number(),
  wallMs: z.number(),
  failure: failureLabelSchema,
  decidedAt: z.string(),
});
export type QuestionResult = z.infer<typeof questionResultSchema>;

/** The stored result of a question directory, or null when the question is not decided yet (or its record is unreadable). */
export function readQuestionResult(questionDir: string): QuestionResult | null {
  const path = join(questionDir, RESULT_FILE);
  if (!existsSync(path)) return null;
  try {
    const parsed = questionResultSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Written whole or not at all: a kill mid-write leaves the question undecided, never half-recorded. */
export function writeQuestionResult(questionDir: string, result: QuestionResult): void {
  const path = join(questionDir, RESULT_FILE);
  const partial = `${path}.${process.pid}.tmp`;
  writeFileSync(partial, `${JSON.stringify(result, null, 2)}\n`);
  renameSync(partial, path);
}
