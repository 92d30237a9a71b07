/**
 * `dwb dqa solve` checks questions files by hand (question-file.ts) instead of with the zod
 * schemas of dataset.ts, to keep zod out of its start-up. This checks the two agree: the same
 * questions come out of every dev file, and every field of a question, removed or given a
 * value of another type, is rejected by both or accepted by both (with the same result).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildingQuestionSchema, locatingQuestionSchema } from '../../../src-main/dqa/dataset';
import { readQuestionSet } from '../../../src-main/dqa/question-file';
import { dqaRoot } from '../../support/fixtures';

const scratch = mkdtempSync(join(tmpdir(), 'dwb-questions-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const schemas = { locating: locatingQuestionSchema, building: buildingQuestionSchema } as const;
const replacements: unknown[] = [undefined, null, 'text', 7, 1.5, true, [], {}];

describe.each(['locating', 'building'] as const)('%s questions files', (scenario) => {
  const raw = JSON.parse(readFileSync(join(dqaRoot(), scenario, 'questions.json'), 'utf8')) as Record<string, unknown>[];

  it('give the questions the zod schema gives, for every dev question', () => {
    const path = join(scratch, `${scenario}.json`);
    writeFileSync(path, JSON.stringify(raw));
    expect(readQuestionSet(path).questions).toEqual(z.array(schemas[scenario]).parse(raw));
  });

  it('reject exactly what the zod schema rejects, field by field, naming the question and field', () => {
    const first = raw[0] as Record<string, unknown>;
    let rejected = 0;
    for (const field of Object.keys(schemas[scenario].shape)) {
      for (const value of replacements) {
        const changed: Record<string, unknown> = { ...first };
        if (value === undefined) delete changed[field];
        else changed[field] = value;
        // The scenario is told from question 1, so the change goes in question 2.
        const questions = [raw[1], changed];
        const path = join(scratch, `${scenario}-${field}.json`);
        writeFileSync(path, JSON.stringify(questions));
        const zodResult = z.array(schemas[scenario]).safeParse(questions);
        if (zodResult.success) {
          expect(readQuestionSet(path).questions).toEqual(zodResult.data);
        } else {
          rejected += 1;
          const named = 'id' in changed ? ` (${String(changed['id'])})` : '';
          expect(() => readQuestionSet(path)).toThrow(`: question 2${named}, field ${field}: expected`);
        }
      }
    }
    expect(rejected).toBeGreaterThan(50);
  });
});
