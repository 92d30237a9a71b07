/**
 * AutoPlan's training loop (Ouyang & Li 2023, §3): per batch of B questions, collect
 * experience with the ReAct loop (thought naming the playbook step, action, formalizer),
 * reward from the environment, then Summarize–Identify flaws–Revise in the same
 * conversation; one update call in a fresh conversation rewrites the playbook from all jobs.
 * Everything here is deterministic given the model's replies: no clock, no randomness.
 */
import type { ChatMessage, ModelProvider } from '../../../llm/types';
import { actionText, formalizeFast, type FormalAction } from './formalizer';
import { type Cost, type JobRecord, type PlaybookVersion, sealVersion, findSpecifics, type TrajectoryStep } from './playbook';
import {
  ACTION_PROMPT,
  flawsPrompt,
  formalizerMessages,
  jobMessage,
  REVISE_PROMPT,
  summarizePrompt,
  taskDescription,
  THOUGHT_WITH_PLAYBOOK,
  THOUGHT_WITHOUT_PLAYBOOK,
  updateMessages,
  type TaskContext,
  type TrainingHints,
} from './prompts';

/** One training question, opened against its database. */
export interface TrainingJob {
  questionId: string;
  objective: string;
  rules: string;
  task: TaskContext;
  hints: TrainingHints;
  /** Every candidate and hint value of the question: a playbook naming one is not general. */
  specifics: { names: string[]; values: number[] };
  /** The observation of a query: rows or the database's error, as text. */
  query(text: string): Promise<string>;
  /** Whether the decision is the simulator's best. */
  judge(decision: string): boolean;
}

export interface TrainingOptions {
  model: ModelProvider;
  modelName: string;
  taskType: { scenario: string; db: string; label: string };
  /** The batches, in order; each job is opened when its turn comes and closed after. */
  batches: readonly (readonly string[])[];
  /** B as asked (the last batch may be smaller), recorded with every version. */
  batchSize: number;
  openJob(questionId: string): Promise<TrainingJob & { close(): Promise<void> }>;
  /** Sampling temperature of thought and action calls; reflection, formalizer and update calls are greedy. */
  temperature: number;
  maxActions: number;
  /** The paper's no_reflection ablation keeps only Summarize. */
  reflection: 'sir' | 'summary-only';
  split: string | null;
  /** Told of every version as it is made. */
  onVersion?: (version: PlaybookVersion) => void;
  onProgress?: (line: string) => void;
}

class CostedModel {
  readonly cost: Cost = { calls: 0, promptTokens: 0, completionTokens: 0 };
  constructor(private readonly model: ModelProvider) {}

  async ask(messages: ChatMessage[], temperature: number, firstLineOnly: boolean): Promise<string> {
    const response = await this.model.generate({ messages, temperature });
    this.cost.calls += 1;
    this.cost.promptTokens += response.usage?.promptTokens ?? 0;
    this.cost.completionTokens += response.usage?.completionTokens ?? 0;
    const text = response.content.trim();
    // The paper stops thoughts at the newline; the port has no stop sequences, so the first line is kept here.
    return firstLineOnly ? (text.split('\n').find((line) => line.trim() !== '')?.trim() ?? '') : text;
  }
}

function withoutLabel(text: string, label: string): string {
  return text.replace(new RegExp(`^\\s*${label}\\s*:\\s*`, 'i'), '').trim();
}

/** The job's ReAct loop: returns the conversation (for reflection), the steps and the decision. */
async function collectExperience(
  model: CostedModel,
  job: TrainingJob,
  playbook: string,
  options: Pick<TrainingOptions, 'temperature' | 'maxActions'>,
): Promise<{ history: ChatMessage[]; steps: TrajectoryStep[]; decision: string | null; outcome: string }> {
  const history: ChatMessage[] = [
    { role: 'system', content: taskDescription(job.task) },
    { role: 'user', content: jobMessage(job.rules, playbook, job.objective) },
  ];
  const thoughtPrompt = playbook.trim() ? THOUGHT_WITH_PLAYBOOK : THOUGHT_WITHOUT_PLAYBOOK;
  const steps: TrajectoryStep[] = [];
  for (let step = 0; step < options.maxActions; step += 1) {
    const thought = withoutLabel(await model.ask([...history, { role: 'user', content: thoughtPrompt }], options.temperature, true), 'thought');
    history.push({ role: 'assistant', content: `Thought: ${thought}` });
    const rawAction = withoutLabel(await model.ask([...history, { role: 'user', content: ACTION_PROMPT }], options.temperature, false), 'action');
    let action: FormalAction | null = formalizeFast(rawAction);
    const formalizerCalled = action === null;
    if (action === null) action = formalizeFast(await model.ask(formalizerMessages(rawAction), 0, false));
    const written = action === null ? rawAction : actionText(action);
    history.push({ role: 'assistant', content: `Action: ${written}` });
    if (action === null) {
      const observation = 'Invalid action: write exactly one Query[…] or Finish[…].';
      steps.push({ thought, rawAction, action: null, formalizerCalled, observation });
      history.push({ role: 'user', content: `Observation: ${observation}` });
      continue;
    }
    if (action.kind === 'finish') {
      steps.push({ thought, rawAction, action: written, formalizerCalled, observation: '' });
      return { history, steps, decision: action.decision, outcome: '' };
    }
    const observation = await job.query(action.text);
    steps.push({ thought, rawAction, action: written, formalizerCalled, observation });
    history.push({ role: 'user', content: `Observation:\n${observation}` });
  }
  return { history, steps, decision: null, outcome: `failed: the limit of ${options.maxActions} actions was reached without Finish` };
}

async function runJob(model: CostedModel, job: TrainingJob, playbook: string, options: TrainingOptions): Promise<JobRecord> {
  const { history, steps, decision, outcome: limitOutcome } = await collectExperience(model, job, playbook, options);
  const success = decision !== null && job.judge(decision);
  const outcome = decision === null ? limitOutcome : success ? `succeeded: Finish[${decision}] is the best decision` : `failed: Finish[${decision}] is not the best decision`;
  const reflect = async (prompt: string): Promise<string> => {
    history.push({ role: 'user', content: prompt });
    const reply = await model.ask(history, 0, false);
    history.push({ role: 'assistant', content: reply });
    return reply;
  };
  const summary = await reflect(summarizePrompt(outcome, job.hints));
  const flaws = options.reflection === 'sir' ? await reflect(flawsPrompt(playbook.trim() !== '')) : null;
  // Revise is skipped while there is no playbook to revise (and in the ablation).
  const revision = options.reflection === 'sir' && playbook.trim() !== '' ? await reflect(REVISE_PROMPT) : null;
  return { questionId: job.questionId, objective: job.objective, steps, decision, success, summary, flaws, revision };
}

/** Trains one task type's playbook; returns every version, in order. */
export async function trainPlaybook(options: TrainingOptions): Promise<PlaybookVersion[]> {
  const versions: PlaybookVersion[] = [];
  let playbook = '';
  let parent: string | null = null;
  for (const [batchIndex, batch] of options.batches.entries()) {
    const model = new CostedModel(options.model);
    const jobs: JobRecord[] = [];
    const names = new Set<string>();
    const values: number[] = [];
    for (const questionId of batch) {
      const job = await options.openJob(questionId);
      try {
        jobs.push(await runJob(model, job, playbook, options));
        for (const name of job.specifics.names) names.add(name);
        values.push(...job.specifics.values);
      } finally {
        await job.close();
      }
      options.onProgress?.(`batch ${batchIndex + 1}: ${questionId} ${jobs.at(-1)?.success ? 'success' : 'fail'}`);
    }
    const rewritten = await model.ask(updateMessages(options.taskType.label, playbook, jobs), 0, false);
    const next = withoutLabel(rewritten, 'playbook');
    const version = sealVersion({
      format: 'decision-workbench/playbook-version',
      version: 1,
      taskType: { scenario: options.taskType.scenario, db: options.taskType.db },
      index: batchIndex + 1,
      parent,
      playbook: next,
      previous: playbook,
      batch: { questionIds: [...batch] },
      jobs,
      successRate: jobs.length === 0 ? 0 : jobs.filter((job) => job.success).length / jobs.length,
      cost: model.cost,
      settings: { model: options.modelName, batchSize: options.batchSize, temperature: options.temperature, reflection: options.reflection, maxActions: options.maxActions, split: options.split },
      specifics: findSpecifics(next, [...names], values),
      review: { status: 'proposed', pinned: false },
    });
    versions.push(version);
    options.onVersion?.(version);
    playbook = next;
    parent = version.hash;
  }
  return versions;
}
