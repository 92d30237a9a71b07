import type { Engine } from '../contract/data';
import { dialectNotes } from './dialects';
import type { Technique } from './techniques';

export interface PromptContext {
  technique: Technique;
  engine: Engine;
  schemaSummary: string;
  question: string;
  rules: string;
  /** How the `whatif` tool differs from querying this database, when it is offered and does. */
  whatIfNote?: string | null;
}

/**
 * The system prompt: the role, how this technique works, the database and its dialect. The
 * business rules and the question go in the first user message, where the model expects the
 * task.
 */
export function systemPrompt(context: PromptContext): string {
  const dialect = dialectNotes[context.engine];
  return [
    'You are a careful decision analyst. You answer a business decision question by querying a database and reasoning over the results. Never guess a number you can query.',
    techniqueInstructions(context.technique),
    `# Database\nEngine: ${dialect.label}. The connection is read-only: queries that would change data are refused.\n${dialect.notes}\n\n${context.schemaSummary}`,
    ...(context.whatIfNote ? [`# What-if experiments\n${context.whatIfNote}`] : []),
    '# Answer\nThe decision is the chosen option exactly as the data names it (e.g. a node name or a building id), with a rationale that cites the numbers you observed.',
  ].join('\n\n');
}

export function taskMessage(context: PromptContext): string {
  const rules = context.rules.trim() ? `# Business rules\n${context.rules.trim()}\n\n` : '';
  return `${rules}# Question\n${context.question.trim()}`;
}

function techniqueInstructions(technique: Technique): string {
  switch (technique.id) {
    case 'singlerag':
      return '# Method\nRetrieve what you need with ONE query (make it count: join and aggregate as needed), then answer.';
    case 'iterrag':
      return '# Method\nWork step by step: think about what you need next, run a query, read the observation, and repeat until you can answer.';
    case 'planrag':
      return [
        '# Method',
        '1. First make a plan: the ordered analysis steps needed to reach the decision, derived from the business rules.',
        '2. Then carry out the plan, one query per step, reading each observation.',
        '3. After every observation, check whether the plan still holds. If the data shows it is wrong or incomplete (a missing table, an unexpected value, a better route), re-plan before continuing.',
        '4. Answer when the evidence decides the question.',
      ].join('\n');
    case 'planrag-norp':
      return [
        '# Method',
        '1. First make a plan: the ordered analysis steps needed to reach the decision, derived from the business rules.',
        '2. Then carry out the plan, one query per step, reading each observation, and answer when the evidence decides the question.',
      ].join('\n');
  }
}
