import type { Engine } from '../../../contract/data';
import type { ChatMessage } from '../../../llm/types';
import { dialectNotes } from '../../dialects';
import { actionLine, type ActionLibrary, type Demonstration } from './library';

/**
 * Pearl's prompts, in our own words: the planner (question, rules, schema and the library, no
 * data), the fix request after a parser error, and the executor of one step.
 */
export interface PlannerContext {
  question: string;
  rules: string;
  engine: Engine;
  schemaSummary: string;
  library: ActionLibrary;
  demonstrations: readonly Demonstration[];
}

const programFormat = [
  'New actions:',
  '- NAME(ARG1, ARG2) : one general sentence saying what it does     (or "- None")',
  '',
  '1. out1 = ACTION(arguments) : one sentence saying what this step finds',
  '2. out2 = ACTION(arguments) : …',
].join('\n');

function plannerSystem(context: PlannerContext): string {
  const dialect = dialectNotes[context.engine];
  return [
    'You plan the analysis of a business decision as a small program of actions. You do not see the data: another worker carries out each action against the database later, one at a time, and hands each result on to the actions that use it.',
    `# Actions you can use\n${context.library.actions.map((action) => `- ${actionLine(action)}`).join('\n')}\n\nAn argument is DB (the database; only where an action has a DB parameter), a quoted string ("harbour_east", "unit price, stock"), or the output of an EARLIER step (out1, out2, …). Numbers and names go in quotes.`,
    [
      '# How to write the program',
      '- Prefer the actions above. When none fits, define a new action under "New actions:" with a signature and one general sentence; it is valid only in this program. Otherwise write "- None".',
      '- Number the steps 1, 2, 3, … and give each output its own name (out1, out2, …). A step may only use outputs of steps before it, never its own.',
      '- Cover every fact the business rules need to decide, and nothing else. Keep each step simple: one action, no loops or comprehensions.',
      '- The answer is made of the outputs no later step uses, so make sure the last of them names the chosen option exactly as the data does.',
      `- Leave one blank line between the new actions and the steps, and no blank lines elsewhere. Format:\n${programFormat}`,
    ].join('\n'),
    `# The database (${dialect.label}; you will not query it yourself)\n${context.schemaSummary}`,
    ...(context.demonstrations.length
      ? [`# Examples\n${context.demonstrations.map((demo, index) => `## Example ${index + 1}\nQuestion: ${demo.question}\n\n${demo.program}`).join('\n\n')}`]
      : []),
  ].join('\n\n');
}

function task(context: PlannerContext, failedPrograms: readonly string[]): string {
  const rules = context.rules.trim() ? `# Business rules\n${context.rules.trim()}\n\n` : '';
  const failed = failedPrograms.length
    ? `\n\n# Programs that ran but reached the wrong decision\n${failedPrograms.map((program, index) => `## Attempt ${index + 1}\n${program}\n(Wrong: this program did not lead to the right decision. Think again about the strategy.)`).join('\n\n')}`
    : '';
  return `${rules}# Question\n${context.question.trim()}${failed}\n\nWrite the program for this question.`;
}

/** The first planner request (with the programs that failed before, when demonstrations are refined). */
export function plannerMessages(context: PlannerContext, failedPrograms: readonly string[] = []): ChatMessage[] {
  return [
    { role: 'system', content: plannerSystem(context) },
    { role: 'user', content: task(context, failedPrograms) },
  ];
}

/**
 * A fix request (paper §3.4): the same instructions, the invalid program, the parser's
 * latest messages and every message of earlier attempts, and a request to repair it (and
 * improve it where it is weak).
 */
export function fixMessages(context: PlannerContext, invalid: string, latest: readonly string[], earlier: readonly string[], failedPrograms: readonly string[] = []): ChatMessage[] {
  return [
    { role: 'system', content: plannerSystem(context) },
    {
      role: 'user',
      content: [
        task(context, failedPrograms),
        `# Your last program could not be read\n${invalid}`,
        `# What the parser found\n${latest.map((message) => `- ${message}`).join('\n')}`,
        ...(earlier.length ? [`# Errors in your earlier attempts (do not repeat them)\n${earlier.map((message) => `- ${message}`).join('\n')}`] : []),
        'Write the whole program again, corrected. If you see a better plan while fixing it, improve it too.',
      ].join('\n\n'),
    },
  ];
}

export interface StepContext {
  engine: Engine;
  schemaSummary: string;
  rules: string;
  question: string;
  /** The step's output name (`out2`). */
  id: string;
  /** `NAME(P1, P2) : definition`. */
  action: string;
  bindings: readonly { param: string; value: string }[];
  description: string;
  readsDatabase: boolean;
}

/**
 * One step: the action with its definition, each argument bound as `NAME = value`, and the
 * step's sentence from the program. A database step is asked for one query first.
 */
export function stepMessages(context: StepContext): ChatMessage[] {
  const dialect = dialectNotes[context.engine];
  const system = [
    'You carry out one step of an analysis program that answers a business decision question. Do exactly what the action and the step ask, using the arguments given; later steps build on your result.',
    ...(context.readsDatabase
      ? [`# Database\nEngine: ${dialect.label}. The connection is read-only.\n${dialect.notes}\n\n${context.schemaSummary}`]
      : []),
    ...(context.rules.trim() ? [`# Business rules\n${context.rules.trim()}`] : []),
  ].join('\n\n');
  const bindings = context.bindings.length ? context.bindings.map(({ param, value }) => `${param} = ${value}`).join('\n') : '(none)';
  const user = [
    `# The question the program answers\n${context.question.trim()}`,
    `# Action\n${context.action}`,
    `# Arguments\n${bindings}`,
    `# This step (its result becomes ${context.id})\n${context.description}`,
    context.readsDatabase
      ? 'First write ONE read-only query that realises this action with these arguments. When you have its rows, give the step\'s output: the result in full (a list or short paragraphs, with the numbers as the rows show them), for the steps that use it.'
      : 'Give the step\'s output: the result in full (a list or short paragraphs, with the numbers), for the steps that use it. Show any arithmetic.',
  ].join('\n\n');
  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
}

/** The answer mapping (paper Fig. 5, our decision normaliser): the free-form answer to one option. */
export function mappingMessages(question: string, answer: string, candidates: readonly string[] | null): ChatMessage[] {
  return [
    { role: 'system', content: 'You turn the free-form result of an analysis into the decision it reaches. Do not redo the analysis: read what it concluded.' },
    {
      role: 'user',
      content: [
        `# Question\n${question.trim()}`,
        `# The analysis's answer\n${answer}`,
        candidates ? `# The options (answer with one of them, exactly as written)\n${candidates.join(', ')}` : '# The options\nAnswer with the option exactly as the data names it (a node name, a building id).',
        'Give the decision and, as the rationale, the part of the answer that supports it.',
      ].join('\n\n'),
    },
  ];
}

/**
 * The paper's fallback when no program parses: the zero-shot baseline, which answers from the
 * question alone — here the question, the rules and the schema, never the data.
 */
export function zeroShotMessages(context: Pick<PlannerContext, 'question' | 'rules' | 'engine' | 'schemaSummary'>): ChatMessage[] {
  const rules = context.rules.trim() ? [`# Business rules\n${context.rules.trim()}`] : [];
  return [
    { role: 'system', content: 'You make a business decision without looking at the data: you know only what the question, the rules and the layout of the database say.' },
    {
      role: 'user',
      content: [
        `# The database (${dialectNotes[context.engine].label}; its layout only, no rows)\n${context.schemaSummary}`,
        ...rules,
        `# Question\n${context.question.trim()}`,
        'Decide now, without any query: give the decision, named exactly as the data would name it, and a short rationale.',
      ].join('\n\n'),
    },
  ];
}
