/**
 * A scripted model for technique benchmarks over DQA questions: every request is answered
 * from the plan of the question it belongs to (told by the question text in the first user
 * message) and from how far that question's conversation has got (its assistant turns), so
 * questions run side by side get their own answers whatever order their requests arrive in.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dqaQuestionText } from '../../src-main/benchmark/dqa-question-text';
import { buildingQuestionSchema, locatingQuestionSchema, type BuildingQuestion, type LocatingQuestion } from '../../src-main/dqa/dataset';
import { loadBuildingDump, loadLocatingDump } from '../../src-main/dqa/load';
import { prepareScenario, solvePrepared } from '../../src-main/dqa/prepared-scenario';
import type { DecisionResult } from '../../src-main/dqa/simulation';
import { dqaRoot } from './fixtures';
import { messageText, type ReceivedChatRequest, type ScriptStep, type ScriptedTurn } from './scripted-openai/script';

export type DqaQuestion = LocatingQuestion | BuildingQuestion;

export interface QuestionScript {
  /** Queries made one after the other (each answered by the database). */
  queries: string[];
  answer: string;
  /** Plan steps, for techniques that plan first. */
  plan?: string[];
}

export function devQuestions(scenario: 'locating' | 'building', ids: readonly string[]): DqaQuestion[] {
  const raw = JSON.parse(readFileSync(join(dqaRoot(), scenario, 'questions.json'), 'utf8')) as unknown[];
  const all = raw.map((item) => (scenario === 'locating' ? locatingQuestionSchema.parse(item) : buildingQuestionSchema.parse(item)));
  return ids.map((id) => {
    const question = all.find((candidate) => candidate.id === id);
    if (!question) throw new Error(`no DQA question ${id}`);
    return question;
  });
}

/** A questions file with the given questions, their dump paths made absolute. */
export function writeQuestionFile(path: string, scenario: 'locating' | 'building', questions: readonly DqaQuestion[]): string {
  const folder = join(dqaRoot(), scenario);
  writeFileSync(path, JSON.stringify(questions.map((question) => ({ ...question, rdb: join(folder, question.rdb), gdb: join(folder, question.gdb) }))));
  return path;
}

/** The exact simulator's verdict on a dev question, read straight from its relational dump (the test's oracle). */
export function simulate(scenario: 'locating' | 'building', question: DqaQuestion): DecisionResult {
  const text = readFileSync(join(dqaRoot(), scenario, question.rdb), 'utf8');
  if (scenario === 'locating') {
    const q = question as LocatingQuestion;
    return solvePrepared(prepareScenario('locating', loadLocatingDump(text, 'relational', q.rdb)), { country: q.country, home: q.home }, 'compat');
  }
  return solvePrepared(prepareScenario('building', loadBuildingDump(text, 'relational', question.rdb)), { goods: (question as BuildingQuestion).goods }, 'compat');
}

/** The question a request belongs to: its text follows `# Question` in the first user message. */
export function questionOfRequest(request: ReceivedChatRequest, questions: readonly DqaQuestion[]): DqaQuestion {
  const first = request.chat.messages.find((message) => message.role === 'user');
  const text = first ? messageText(first) : '';
  const asked = text.split('# Question\n')[1]?.trim() ?? '';
  const question = questions.find((candidate) => dqaQuestionText(candidate) === asked);
  if (!question) throw new Error(`request ${request.index} asks no known question: ${asked.slice(0, 120)}`);
  return question;
}

export const scriptedUsage = { promptTokens: 100, completionTokens: 10 };

/** An endless script (`turns` steps) answering each question from its QuestionScript. */
export function techniqueModel(questions: readonly DqaQuestion[], scripts: ReadonlyMap<string, QuestionScript>, options: { delayMs?: number; turns?: number } = {}): ScriptStep[] {
  const answer = (request: ReceivedChatRequest): ScriptedTurn => {
    const question = questionOfRequest(request, questions);
    const script = scripts.get(question.id);
    if (!script) throw new Error(`no script for ${question.id}`);
    const stage = request.chat.messages.filter((message) => message.role === 'assistant').length;
    const calls = [
      ...(script.plan ? [{ name: 'plan', arguments: { steps: script.plan } }] : []),
      ...script.queries.map((query) => ({ name: 'query', arguments: { query } })),
      { name: 'answer', arguments: { decision: script.answer, rationale: `scripted answer for ${question.id}` } },
    ];
    const call = calls[Math.min(stage, calls.length - 1)] as { name: string; arguments: Record<string, unknown> };
    return { label: `${question.id} turn ${stage + 1}`, toolCalls: [call], usage: scriptedUsage, ...(options.delayMs ? { delayMs: options.delayMs } : {}) };
  };
  return Array.from({ length: options.turns ?? 400 }, () => answer);
}
