import type { RunEvent } from '../../../contract/run';
import type { Connector } from '../../../connectors/connector';
import type { ModelProvider } from '../../../llm/types';
import type { RunSimulator } from '../../../simulators/run-simulator';
import { automaticGate } from '../../review-gate';
import { defaultRunLimits, RunContext, type RunLimits } from '../../run-context';
import type { ActionLibrary, Demonstration } from './library';
import { pearl, runPearlWith } from './technique';

/** Tries per demonstration (the reference code drops an example after its fourth failure). */
export const maxRefinementAttempts = 4;

export interface RefinementAttempt {
  /** The program that ran (null when none parsed, or the run ended before one did). */
  program: string | null;
  decision: string | null;
  /** The simulator's best decision agrees with it. */
  correct: boolean;
}

export interface RefinementRequest {
  question: string;
  rules: string;
  scenario: string;
  connector: Connector;
  provider: ModelProvider;
  toolMode: 'tools' | 'text';
  /** Must know the question's parameters: its best decision is the gold answer. */
  simulator: RunSimulator;
  /** The library the planner is shown (its actions and demonstrations); else the one a run would pick. */
  library?: ActionLibrary;
  limits?: Partial<RunLimits>;
  /** Every event of every attempt, in order (for a log). */
  onEvent?: (event: RunEvent, attempt: number) => void;
}

/**
 * Self-refinement of one demonstration (paper §3.4, SPECS.md §2.1) on a training question:
 * the whole pipeline runs; when the simulator says the decision is not the best one, the
 * program goes into the planner's history as a wrong one and the question is planned again,
 * up to four times. The first program that reaches the best decision becomes the demonstration;
 * after four failures the question gives none.
 */
export async function refineDemonstration(request: RefinementRequest): Promise<{ accepted: Demonstration | null; attempts: RefinementAttempt[] }> {
  const attempts: RefinementAttempt[] = [];
  const failed: string[] = [];
  for (let attempt = 1; attempt <= maxRefinementAttempts; attempt++) {
    const events: RunEvent[] = [];
    const run = new RunContext(
      {
        question: request.question,
        rules: request.rules,
        technique: pearl.id,
        connector: request.connector,
        connectionDescription: 'demonstration refinement',
        provider: request.provider,
        toolMode: request.toolMode,
        limits: { ...defaultRunLimits, ...request.limits },
        gate: automaticGate,
        simulator: request.simulator,
        emit: (event) => {
          events.push(event);
          request.onEvent?.(event, attempt);
        },
      },
      pearl,
    );
    const outcome = await runPearlWith(run, failed, request.library);
    const program = [...events].reverse().find((event): event is Extract<RunEvent, { type: 'tool' }> => event.type === 'tool' && event.tool === 'pearl-program' && (event.input as { valid?: boolean }).valid === true);
    const text = program ? String((program.input as { program: string }).program) : null;
    const decision = events.find((event): event is Extract<RunEvent, { type: 'decision' }> => event.type === 'decision');
    const correct = outcome.status === 'answered' && decision?.verification?.agrees === true && text !== null;
    attempts.push({ program: text, decision: outcome.decision, correct });
    if (correct && text !== null) return { accepted: { scenario: request.scenario, question: request.question, program: text }, attempts };
    failed.push(text ?? '(no program could be read)');
  }
  return { accepted: null, attempts };
}

/**
 * The library with an accepted demonstration kept as one of its planner's examples; it takes
 * the place of an older demonstration of the same question (the refined program replaces it).
 */
export function withDemonstration(library: ActionLibrary, demonstration: Demonstration): ActionLibrary {
  const others = library.demonstrations.filter((demo) => !(demo.question === demonstration.question && demo.scenario === demonstration.scenario));
  return { ...library, demonstrations: [...others, demonstration] };
}
