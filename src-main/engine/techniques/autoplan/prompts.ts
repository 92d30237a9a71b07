/**
 * AutoPlan's prompts, in our own words. The task description says what the agent does and
 * how it acts; the playbook (when there is one) sits between the task and the question; the
 * thought names the playbook step it follows. Reflection prompts (Summarize, Identify flaws,
 * Revise) continue the job's conversation; the update prompt opens a fresh one.
 */
import type { ChatMessage } from '../../../llm/types';

export interface TaskContext {
  /** E.g. "Locating questions on a relational database (SQLite SQL)". */
  taskType: string;
  dialectLabel: string;
  schemaSummary: string;
}

export const ACTION_SYNTAX =
  'Act with exactly one action per step:\n- Query[<one read-only query in the database dialect>] runs the query; its rows (or the database error) come back as the observation.\n- Finish[<decision>] ends the job with the decision, named exactly as the data names it (a node name, a building id).';

export function taskDescription(task: TaskContext): string {
  return [
    `You are a decision analyst solving ${task.taskType}. You cannot see the database; you learn about it only through queries. Never guess a number you can query.`,
    `# Actions\n${ACTION_SYNTAX}`,
    `# Database\nDialect: ${task.dialectLabel}. Read-only.\n\n${task.schemaSummary}`,
  ].join('\n\n');
}

/** The job's opening message: business rules, the playbook (only when there is one), the question. */
export function jobMessage(rules: string, playbook: string, question: string): string {
  const parts = [];
  if (rules.trim()) parts.push(`# Business rules\n${rules.trim()}`);
  if (playbook.trim()) parts.push(`# Playbook\nFollow this playbook, learned from earlier questions of this kind:\n${playbook.trim()}`);
  parts.push(`# Question\n${question.trim()}`);
  return parts.join('\n\n');
}

export const THOUGHT_WITH_PLAYBOOK = 'Thought: in one line, say which playbook step you are on ("Step N: …") and what the one next action should be, faithful to that step.';
export const THOUGHT_WITHOUT_PLAYBOOK = 'Thought: in one line, your thought about the one next action.';
export const ACTION_PROMPT = 'Action: write the one next action, Query[…] or Finish[…], and nothing else.';

export function formalizerMessages(raw: string): ChatMessage[] {
  return [
    {
      role: 'system',
      content: [
        'Rewrite an agent\'s action into exactly one valid action. Valid forms: Query[<query>] or Finish[<decision>]. Keep the query text as written; if several actions were written keep only the first. Reply with the action only.',
        'Examples:',
        'Input: I will run SELECT name FROM t to see the names\nOutput: Query[SELECT name FROM t]',
        'Input: The answer is node X because its value is largest.\nOutput: Finish[X]',
        'Input: first MATCH (n:N) RETURN n.name, then answer\nOutput: Query[MATCH (n:N) RETURN n.name]',
      ].join('\n\n'),
    },
    { role: 'user', content: `Input: ${raw.trim()}\nOutput:` },
  ];
}

export interface TrainingHints {
  best: string;
  criticalValues: { label: string; value: number }[];
}

/** Summarize: the outcome, the training-only hints, then a step-by-step summary. */
export function summarizePrompt(outcome: string, hints: TrainingHints | null): string {
  const lines = [`Outcome: ${outcome}`];
  if (hints) {
    lines.push(`Training hint (this job only): the best decision was ${hints.best}.`);
    if (hints.criticalValues.length > 0) lines.push(`Training hint: the values that decide it are ${hints.criticalValues.map((value) => `${value.label} = ${value.value}`).join('; ')}.`);
  }
  lines.push('Summarize the interaction step by step: what each action looked for, what it found, and how the final decision was reached.');
  return lines.join('\n');
}

export function flawsPrompt(hasPlaybook: boolean): string {
  return [
    hasPlaybook
      ? 'Identify every flawed part of the playbook or of the actions that led to this outcome.'
      : 'Identify every flawed part of the actions that led to this outcome.',
    'Remember that the business rules, not real-world habits, decide here, and that database errors and observations are always right. Describe flaws as general steps, without naming specific nodes, buildings or values.',
  ].join(' ');
}

export const REVISE_PROMPT = 'Suggest a revision of only the flawed part of the playbook, written as general steps that would work for any question of this kind.';

export interface JobExperience {
  objective: string;
  success: boolean;
  summary: string;
  flaws: string | null;
  revision: string | null;
}

/** The update call: a fresh conversation holding the task, the current playbook and every job's experience, in job order. */
export function updateMessages(taskType: string, playbook: string, jobs: readonly JobExperience[]): ChatMessage[] {
  const experiences = jobs.map((job, index) =>
    [
      `## Job ${index + 1}`,
      `Objective: ${job.objective.trim()}`,
      `Result: ${job.success ? 'success' : 'fail'}`,
      `Summary: ${job.summary.trim()}`,
      ...(job.flaws === null ? [] : [`Flaws: ${job.flaws.trim()}`]),
      ...(job.revision === null ? [] : [`Suggested revision: ${job.revision.trim()}`]),
    ].join('\n'),
  );
  return [
    { role: 'system', content: 'You write playbooks: short, numbered, general procedures that a decision analyst follows to answer every question of one kind.' },
    {
      role: 'user',
      content: [
        `# Task\n${taskType}\n\n${ACTION_SYNTAX}`,
        `# Current playbook\n${playbook.trim() || '(none yet)'}`,
        `Experiences begin\n\n${experiences.join('\n\n')}\n\nExperiences end`,
        '# Instruction\nRewrite the playbook as numbered steps. Keep what the successful jobs did; fix every flaw and use the suggested revisions of all jobs. Keep it general across questions of this kind and write each query step as the kind of Query[…] to run. Never name specific nodes, buildings, countries, goods or numeric values from these jobs. Reply with the playbook only.',
      ].join('\n\n'),
    },
  ];
}
