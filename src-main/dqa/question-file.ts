/**
 * Reads a DQA `questions.json` named by the user (`dwb dqa solve --questions PATH`), tells its
 * scenario from its fields (Locating questions name a `home` trade node, Building questions a
 * `goods`) and validates every question, failing with one line that names the question and
 * field. Dump paths (`rdb`, `gdb`) are relative to the file's folder, as in fixtures/dqa.
 */
import { dirname, resolve } from 'node:path';
import { WorkbenchError, fileErrorCode, fileErrorReason } from '../contract/errors';
import type { BuildingQuestion, DqaScenario, LocatingQuestion } from './dataset';
import { readBoundedText, readRegularText } from '../native/bounded-read';

export type QuestionSet =
  | { scenario: 'locating'; path: string; baseDir: string; questions: LocatingQuestion[] }
  | { scenario: 'building'; path: string; baseDir: string; questions: BuildingQuestion[] };

function readJson(path: string): unknown {
  let text: string;
  try {
    text = readBoundedText(path);
  } catch (error) {
    throw new WorkbenchError('not-found', `cannot read the questions file ${path}: ${fileErrorReason(error)}`);
  }
  return parseJson(text, path);
}

function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new WorkbenchError('invalid-request', `${path} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function scenarioOf(first: unknown, path: string): DqaScenario {
  if (typeof first === 'object' && first !== null) {
    if ('home' in first) return 'locating';
    if ('goods' in first) return 'building';
  }
  throw new WorkbenchError('invalid-request', `${path}: cannot tell the scenario: question 1 has neither "home" (Locating) nor "goods" (Building)`);
}

/**
 * The fields of each scenario's questions, in the order they are checked (the order of
 * dataset.ts's schemas, which tests and other readers use). Checked by hand here, not with
 * those zod schemas, because `dwb dqa solve` would otherwise load zod (~30 ms) to check a
 * few strings; a test checks both accept and reject the same questions.
 */
const COMMON_FIELDS = [
  ['id', 'string'],
  ['question_num', 'integer'],
  ['year', 'string'],
  ['question', 'string'],
  ['business_rules', 'string'],
  ['rdb', 'string'],
  ['gdb', 'string'],
] as const;
const LOCATING_FIELDS = [...COMMON_FIELDS, ['country', 'string'], ['home', 'string'], ['goal', 'string'], ['answer', 'string']] as const;
/** Building answers are building ids, compared as strings with the simulators' candidates. */
const BUILDING_FIELDS = [...COMMON_FIELDS, ['country', 'string'], ['goods', 'string'], ['answer', 'id']] as const;

type FieldKind = 'string' | 'integer' | 'id';

function kindOf(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && !Number.isInteger(value)) return 'a non-integer number';
  return typeof value;
}

function fieldProblem(value: unknown, kind: FieldKind): string | null {
  if (kind === 'string') return typeof value === 'string' ? null : `expected a string, found ${kindOf(value)}`;
  if (kind === 'integer') return typeof value === 'number' && Number.isInteger(value) ? null : `expected an integer, found ${kindOf(value)}`;
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value)) ? null : `expected an integer or a string, found ${kindOf(value)}`;
}

/** The question with only its scenario's fields (a Building answer as a string), or the first problem, named by question and field. */
function validQuestions(path: string, items: unknown[], fields: readonly (readonly [string, FieldKind])[]): Record<string, unknown>[] {
  return items.map((item, index) => {
    const record = typeof item === 'object' && item !== null && !Array.isArray(item) ? (item as Record<string, unknown>) : null;
    const id = record !== null && 'id' in record ? ` (${String(record['id'])})` : '';
    if (record === null) throw new WorkbenchError('invalid-request', `${path}: question ${index + 1}${id}: expected an object, found ${kindOf(item)}`);
    const question: Record<string, unknown> = {};
    for (const [field, kind] of fields) {
      const value = record[field];
      const problem = fieldProblem(value, kind);
      if (problem !== null) throw new WorkbenchError('invalid-request', `${path}: question ${index + 1}${id}, field ${field}: ${problem}`);
      question[field] = kind === 'id' ? String(value) : value;
    }
    return question;
  });
}

export function readQuestionSet(pathArgument: string): QuestionSet {
  const path = resolve(pathArgument);
  return questionSetOf(path, readJson(path));
}

/**
 * `readQuestionSet` for a path a client of the server names: read off the main thread, and only
 * when it is a regular file (a named pipe or a device would stall every client).
 */
export async function readQuestionSetFile(pathArgument: string): Promise<QuestionSet> {
  const path = resolve(pathArgument);
  let text: string;
  try {
    text = await readRegularText(path);
  } catch (error) {
    throw new WorkbenchError(fileErrorCode(error), `cannot read the questions file ${path}: ${fileErrorReason(error)}`);
  }
  return questionSetOf(path, parseJson(text, path));
}

function questionSetOf(path: string, raw: unknown): QuestionSet {
  if (!Array.isArray(raw)) throw new WorkbenchError('invalid-request', `${path}: expected a JSON array of questions`);
  if (raw.length === 0) throw new WorkbenchError('invalid-request', `${path}: the file holds no questions`);
  const baseDir = dirname(path);
  const scenario = scenarioOf(raw[0], path);
  const questions = validQuestions(path, raw, scenario === 'locating' ? LOCATING_FIELDS : BUILDING_FIELDS) as (LocatingQuestion | BuildingQuestion)[];
  const ids = new Set<string>();
  for (const question of questions) {
    if (ids.has(question.id)) throw new WorkbenchError('invalid-request', `${path}: question id ${question.id} appears twice`);
    ids.add(question.id);
  }
  return scenario === 'locating'
    ? { scenario, path, baseDir, questions: questions as LocatingQuestion[] }
    : { scenario, path, baseDir, questions: questions as BuildingQuestion[] };
}
