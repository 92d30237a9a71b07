import type { RunContext, RunOutcome } from '../run-context';

/**
 * A decision technique: a strategy over the shared turn executor (../run-context.ts). It
 * decides which conversations to hold with the model, which tools to offer when, and when the
 * run is over; asking, validating, repairing, performing and recording are the executor's.
 * One conversation (PlanRAG and its baselines, ./conversation.ts) is one such strategy; a DAG
 * of sub-questions, a plan program or a batch of rankings are others.
 */
export interface TechniqueDefinition {
  /** Lower-case letters, digits and dashes: how runs, the CLI and the benchmark name it. */
  id: string;
  label: string;
  summary: string;
  /** The `# Method` section of the system prompt. */
  method: string;
  /** Places the run's playbook (if one is given) in the task message (AutoPlan). */
  usesPlaybook?: boolean;
  /** Reads the documents attached to the run into its context (DeLLMa); the others are not given them. */
  usesDocuments?: boolean;
  /** Sampling temperature of the technique's turns, overriding the provider's (AutoPlan decodes greedily). */
  temperature?: number;
  /** Runs the decision after `run-start`; ends with `run.finish(…)`'s outcome. */
  run(run: RunContext): Promise<RunOutcome>;
}
