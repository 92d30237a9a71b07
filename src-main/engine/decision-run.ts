import { createHash } from 'node:crypto';
import { WorkbenchError } from '../contract/errors';
import { RunContext, type DecisionRunOptions, type RunOutcome } from './run-context';
import { techniqueNamed } from './techniques/registry';
import type { TechniqueDefinition } from './techniques/technique';
import { variantLabelOf } from './techniques/technique-options';

export { defaultRunLimits, type DecisionRunOptions, type ResumeState, type RunLimits, type RunOutcome } from './run-context';
export type { RunSimulator } from '../simulators/run-simulator';
export type { RunWhatIf } from '../whatif/connection-whatif';

/** The playbook a run follows, for the audit chain: its text, the text's sha256 and the version hash when known. */
function playbookRecord(uses: boolean, options: DecisionRunOptions): { playbook?: { version: string | null; sha256: string; text: string } } {
  const text = options.playbook?.trim();
  if (!uses || !text) return {};
  return { playbook: { version: options.playbookVersion ?? null, sha256: createHash('sha256').update(text).digest('hex'), text } };
}

/** The attached documents a run was given, for the audit chain: name, length and the text's sha256 (the text itself reaches the model, so the transcript holds what was used). */
function documentsRecord(options: DecisionRunOptions): { documents?: { name: string; chars: number; sha256: string }[] } {
  if (!options.documents?.length) return {};
  return { documents: options.documents.map((document) => ({ name: document.name, chars: document.text.length, sha256: createHash('sha256').update(document.text).digest('hex') })) };
}

/** The technique's own options and the variant they make, for the audit chain and the produced-by record. */
function techniqueOptionsRecord(technique: TechniqueDefinition, given: Record<string, unknown> | undefined): { techniqueOptions?: Record<string, unknown>; variant?: string } {
  if (given === undefined || !technique.options) return {};
  const variant = variantLabelOf(technique, given);
  return { techniqueOptions: technique.options.schema.parse(given) as Record<string, unknown>, ...(variant !== null ? { variant } : {}) };
}

/**
 * One decision run with the technique the options name (./techniques/registry.ts): the run
 * starts (or resumes), and the technique's strategy drives the shared turn executor
 * (./run-context.ts) until it answers or a limit ends the run. Every step is emitted as an
 * event. Nothing here throws for the model's or the database's mistakes: they become
 * observations, repair turns, or a run that ends with a clear status and message.
 */
export async function runDecision(options: DecisionRunOptions): Promise<RunOutcome> {
  const technique = techniqueNamed(options.technique);
  const run = new RunContext(options, technique);
  const { limits } = options;
  if (!options.resume) {
    run.emit({
      type: 'run-start',
      technique: technique.id,
      question: options.question,
      rules: options.rules,
      mode: options.gate.interactive ? 'step' : 'auto',
      connection: { engine: run.engine, description: options.connectionDescription },
      model: { description: options.provider.description, toolMode: options.toolMode },
      limits: { maxSteps: limits.maxSteps, maxTokens: limits.maxTokens, maxDurationMs: limits.maxDurationMs },
      ...playbookRecord(technique.usesPlaybook === true, options),
      ...(technique.usesDocuments ? documentsRecord(options) : {}),
      ...techniqueOptionsRecord(technique, options.techniqueOptions),
    });
  }
  try {
    return await technique.run(run);
  } catch (error) {
    // A technique's own mistake (not the model's or the data's) still ends the run with a status
    // and its message, so the log, the notebook and the reports say what happened.
    const failure = WorkbenchError.from(error);
    if (failure.code === 'cancelled' || run.signal?.aborted) return run.finish('cancelled', 'The run was stopped');
    return run.finish('failed', `${technique.label} failed: ${failure.message}`);
  }
}
