import type { Program } from './program';

/**
 * Re-running one step of a Pearl program (SPECS.md §2.5: "steps can be re-run; a change
 * invalidates downstream steps"): a new run of the same program keeps the outputs of the run it
 * came from for every step that is neither the chosen step nor depends on it, and carries out
 * the rest again.
 */
export interface KeptOutputs {
  fromRunId: string;
  /** The step to run again (`out2`); it and every step that uses it, directly or not, run again. */
  step: string;
  /** The earlier run's outputs by step id. */
  outputs: Record<string, string>;
}

/** The chosen step and every step that uses its output, directly or through others, in program order. */
export function stepAndDependents(program: Program, stepId: string): string[] {
  const invalid = new Set([stepId]);
  for (const step of program.steps) {
    if (step.args.some((arg) => arg.kind === 'output' && invalid.has(arg.name))) invalid.add(step.id);
  }
  return program.steps.filter((step) => invalid.has(step.id)).map((step) => step.id);
}

/** The outputs a re-run keeps: the earlier run's, for the program's steps outside the re-run. */
export function outputsToKeep(program: Program, kept: KeptOutputs): Map<string, string> {
  const rerun = new Set(stepAndDependents(program, kept.step));
  return new Map(program.steps.flatMap((step) => (!rerun.has(step.id) && typeof kept.outputs[step.id] === 'string' ? [[step.id, kept.outputs[step.id] as string] as const] : [])));
}
