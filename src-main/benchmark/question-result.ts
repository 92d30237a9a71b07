/**
 * The record the benchmark keeps per question (DIR/<question-id>/result.json, schema in
 * contract/benchmarks.ts): how the run ended, what it cost, the decision matched to a
 * candidate, the simulator's verdict, flags and the failure category with its evidence. Its
 * presence marks the question as decided, so a re-run skips it.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { questionResultSchema, type QuestionResult } from '../contract/benchmarks';

export { questionResultSchema, type QuestionFlag, type QuestionResult } from '../contract/benchmarks';

export const RESULT_FILE = 'result.json';

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
