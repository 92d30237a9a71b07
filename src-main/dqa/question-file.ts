/**
 * Reads a DQA `questions.json` named by the user (`dwb dqa solve --questions PATH`), tells its
 * scenario from its fields (Locating questions name a `home` trade node, Building questions a
 * `goods`) and validates every question, failing with one line that names the question and
 * field. Dump paths (`rdb`, `gdb`) are relative to the file's folder, as in fixtures/dqa.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { WorkbenchError } from '../contract/errors';
import { buildingQuestionSchema, locatingQuestionSchema, type BuildingQuestion, type DqaScenario, type LocatingQuestion } from './dataset';

export type QuestionSet =
  | { scenario: 'locating'; path: string; baseDir: string; questions: LocatingQuestion[] }
  | { scenario: 'building'; path: string; baseDir: string; questions: BuildingQuestion[] };

function readJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new WorkbenchError('not-found', `cannot read the questions file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
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

function describeIssue(path: string, items: unknown[], error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return `${path}: invalid questions`;
  const [index, ...field] = issue.path;
  const item = typeof index === 'number' ? items[index] : undefined;
  const id = typeof item === 'object' && item !== null && 'id' in item ? ` (${String((item as { id: unknown }).id)})` : '';
  const where = typeof index === 'number' ? `question ${index + 1}${id}` : 'the file';
  const fieldText = field.length > 0 ? `, field ${field.map(String).join('.')}` : '';
  return `${path}: ${where}${fieldText}: ${issue.message}`;
}

export function readQuestionSet(pathArgument: string): QuestionSet {
  const path = resolve(pathArgument);
  const raw = readJson(path);
  if (!Array.isArray(raw)) throw new WorkbenchError('invalid-request', `${path}: expected a JSON array of questions`);
  if (raw.length === 0) throw new WorkbenchError('invalid-request', `${path}: the file holds no questions`);
  const baseDir = dirname(path);
  const scenario = scenarioOf(raw[0], path);
  const parsed =
    scenario === 'locating' ? z.array(locatingQuestionSchema).safeParse(raw) : z.array(buildingQuestionSchema).safeParse(raw);
  if (!parsed.success) throw new WorkbenchError('invalid-request', describeIssue(path, raw, parsed.error));
  const ids = new Set<string>();
  for (const question of parsed.data) {
    if (ids.has(question.id)) throw new WorkbenchError('invalid-request', `${path}: question id ${question.id} appears twice`);
    ids.add(question.id);
  }
  return scenario === 'locating'
    ? { scenario, path, baseDir, questions: parsed.data as LocatingQuestion[] }
    : { scenario, path, baseDir, questions: parsed.data as BuildingQuestion[] };
}
