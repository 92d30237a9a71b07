/**
 * The benchmark's one door into the engine: runs one decision into an output directory laid
 * out as `dwb run --out` lays it out (notebook.json, run-log.jsonl, transcript.jsonl) through
 * the shared run set-up, and returns how it ended and what it cost. Nothing else in
 * src-main/benchmark calls the engine's set-up.
 *
 * The techniques are measured as the paper measured them: retrieval only. The model is not
 * offered the workbench's simulator or what-if sandbox (they would hand it the answer); the
 * simulator judges the decision afterwards instead (./judge.ts).
 */
import { parseConnectionUriWithPassword } from '../connectors/connection-uri';
import type { RunFidelityRequest } from '../contract/fidelity';
import type { RunEvent, RunStatus } from '../contract/run';
import { runToDirectory, type DirectoryRunRequest } from '../engine/run-setup';

/** The model a benchmark runs: an endpoint's settings, or a provider made once for the batch (a local model). */
export type QuestionModel = Exclude<DirectoryRunRequest['model'], { replay: unknown }>;

export interface QuestionRunInput {
  outDir: string;
  /** A connection URI of an embedded database, e.g. `sqlite:/…/x.sqlite` or `ladybug:/…/x.lbug`. */
  connectionUri: string;
  question: string;
  rules: string;
  technique: string;
  model: QuestionModel;
  maxSteps: number;
  /** The model's context window, which prompts are kept inside; null when unknown. */
  contextTokens?: number | null;
  /** A learned playbook for the `autoplan` technique. */
  playbook?: string;
  playbookVersion?: string;
  /** The technique's own options (DeLLMa's variant and sizes), checked against its schema. */
  techniqueOptions?: Record<string, unknown>;
  /** The DQA question's id: DeLLMa's sampling seed follows it, so each question gets its own draw. */
  questionId?: string;
  /** The fidelity to the technique's paper (absent: `product`, as for any run). */
  fidelity?: RunFidelityRequest;
  signal?: AbortSignal;
  /** Every event of the run as it happens (progress). */
  onEvent?: (event: RunEvent) => void;
}

export interface QuestionRunOutcome {
  status: Exclude<RunStatus, 'running'>;
  decision: string | null;
  message: string | null;
  /** Model calls made. */
  steps: number;
  totalTokens: number;
  promptTokens: number;
  completionTokens: number;
  wallMs: number;
}

/** Runs one decision into `input.outDir`; the model's and the database's mistakes end as a status, never a throw. */
export async function runQuestion(input: QuestionRunInput): Promise<QuestionRunOutcome> {
  const { target, password } = parseConnectionUriWithPassword(input.connectionUri);
  const result = await runToDirectory({
    outDir: input.outDir,
    question: input.question,
    rules: input.rules,
    technique: input.technique,
    connection: { target, description: input.connectionUri, password },
    model: input.model,
    simulator: { rules: 'off', known: {} },
    whatIf: false,
    ...(input.playbook !== undefined ? { playbook: input.playbook } : {}),
    ...(input.playbookVersion !== undefined ? { playbookVersion: input.playbookVersion } : {}),
    ...(input.techniqueOptions ? { techniqueOptions: input.techniqueOptions } : {}),
    ...(input.questionId !== undefined ? { questionId: input.questionId } : {}),
    ...(input.fidelity ? { fidelity: input.fidelity } : {}),
    limits: { maxSteps: input.maxSteps, ...(input.contextTokens ? { contextTokens: input.contextTokens } : {}) },
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.onEvent ? { onEvent: input.onEvent } : {}),
  });
  return {
    status: result.status,
    decision: result.decision,
    message: result.message,
    steps: result.steps,
    totalTokens: result.totalTokens,
    promptTokens: result.promptTokens,
    completionTokens: result.completionTokens,
    wallMs: result.wallTimeMs,
  };
}
