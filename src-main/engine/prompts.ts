import type { Engine } from '../contract/data';
import { dialectNotes } from './dialects';

export interface PromptContext {
  /** The technique's `# Method` section. */
  method: string;
  engine: Engine;
  schemaSummary: string;
  question: string;
  rules: string;
  /** How the `whatif` tool differs from querying this database, when it is offered and does. */
  whatIfNote?: string | null;
  /** A learned playbook (AutoPlan), placed between the task and the question; absent for other techniques. */
  playbook?: string | null;
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
    context.method,
    `# Database\nEngine: ${dialect.label}. The connection is read-only: queries that would change data are refused.\n${dialect.notes}\n\n${context.schemaSummary}`,
    ...(context.whatIfNote ? [`# What-if experiments\n${context.whatIfNote}`] : []),
    '# Answer\nThe decision is the chosen option exactly as the data names it (e.g. a node name or a building id), with a rationale that cites the numbers you observed.',
  ].join('\n\n');
}

export function taskMessage(context: PromptContext): string {
  const rules = context.rules.trim() ? `# Business rules\n${context.rules.trim()}\n\n` : '';
  const playbook = context.playbook?.trim()
    ? `# Playbook\nFollow this playbook, learned from earlier questions of this kind; name the step you are on in every thought.\n${context.playbook.trim()}\n\n`
    : '';
  return `${rules}${playbook}# Question\n${context.question.trim()}`;
}
