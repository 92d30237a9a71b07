/**
 * Access to a DQA data folder laid out as described in its README:
 * `<root>/<scenario>/questions.json` plus `<root>/<scenario>/db/*.sql|*.cql`.
 * Question files are validated on read so a malformed file fails with a field path instead
 * of surfacing later as `undefined` inside a simulator.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { readBoundedText } from '../native/bounded-read';

export type DqaScenario = 'locating' | 'building';

const commonFields = {
  id: z.string(),
  question_num: z.number().int(),
  year: z.string(),
  question: z.string(),
  business_rules: z.string(),
  rdb: z.string(),
  gdb: z.string(),
};

export const locatingQuestionSchema = z.object({
  ...commonFields,
  country: z.string(),
  home: z.string(),
  goal: z.string(),
  answer: z.string(),
});

export const buildingQuestionSchema = z.object({
  ...commonFields,
  country: z.string(),
  goods: z.string(),
  // Building answers are building ids; they are compared as strings with the simulators' candidates.
  answer: z.union([z.number().int(), z.string()]).transform((value) => String(value)),
});

export type LocatingQuestion = z.infer<typeof locatingQuestionSchema>;
export type BuildingQuestion = z.infer<typeof buildingQuestionSchema>;

/** Walks up from `start` to the nearest folder holding a package.json (the repository root). */
export function findRepoRoot(start: string = process.cwd()): string {
  let dir = resolve(start);
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json found above ${start}`);
    dir = parent;
  }
}

/**
 * The DQA data folder: env `DQA_DIR`, else the development subset the repository carries in
 * `fixtures/dqa` (so a clone with nothing beside it can run its tests and benchmarks).
 */
export function dqaRoot(): string {
  const fromEnv = process.env['DQA_DIR'];
  const root = fromEnv !== undefined && fromEnv !== '' ? resolve(fromEnv) : resolve(findRepoRoot(), 'fixtures', 'dqa');
  if (!existsSync(join(root, 'README.md'))) {
    throw new Error(`DQA data not found at ${root} (set DQA_DIR to the folder holding locating/ and building/)`);
  }
  return root;
}

function readQuestionsFile(root: string, scenario: DqaScenario): unknown {
  const path = join(root, scenario, 'questions.json');
  if (!existsSync(path)) throw new Error(`missing ${path}`);
  return JSON.parse(readBoundedText(path)) as unknown;
}

export function readLocatingQuestions(root: string): LocatingQuestion[] {
  return z.array(locatingQuestionSchema).parse(readQuestionsFile(root, 'locating'));
}

export function readBuildingQuestions(root: string): BuildingQuestion[] {
  return z.array(buildingQuestionSchema).parse(readQuestionsFile(root, 'building'));
}

/** Reads a dump named by a question's `rdb`/`gdb` field (relative to the scenario folder). */
export function readDumpText(root: string, scenario: DqaScenario, relativePath: string): string {
  return readBoundedText(join(root, scenario, relativePath));
}
