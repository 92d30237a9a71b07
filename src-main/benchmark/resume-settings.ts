/**
 * A benchmark resumed into the same directory keeps the answers recorded there, so they must
 * have been produced as the new questions will be: same technique and variant, model, endpoint,
 * sampling, limits, tool mode, playbook, and every other setting or extension the runs record.
 * Otherwise earlier answers would count as the new run's accuracy. Two things may differ, and
 * each question's record keeps its own: the endpoint (the same model behind a restarted server
 * or another address answers the same), and the product version (a batch stopped, the
 * workbench updated and the batch resumed is the usual case; the results name every version).
 */
import { createHash } from 'node:crypto';
import { resolveFidelity, type RunFidelityRequest } from '../contract/fidelity';
import type { ProducedBy } from '../contract/produced-by';
import { techniqueNamed } from '../engine/techniques/registry';
import { techniqueFidelity } from '../engine/techniques/technique-extensions';
import type { QuestionResult } from './question-result';
import type { QuestionModel } from './run-question';

/** The settings a resume must repeat, as `dwb dqa solve` names them. */
export interface ResumeSettings {
  technique: string;
  variant: string | null;
  model: string | null;
  temperature: number | null;
  'token limit per call': number | null;
  'step limit': number;
  'tool mode': 'tools' | 'text';
  playbook: string | null;
}

/** What a benchmark about to run asks for. */
export function intendedSettings(input: {
  technique: string;
  variant: string | undefined;
  model: QuestionModel;
  maxSteps: number;
  playbook?: string | undefined;
  playbookVersion?: string | undefined;
  fidelity?: RunFidelityRequest | undefined;
}): ResumeSettings {
  const { model } = input;
  const details = 'provider' in model ? (model.details ?? (model.settings !== null && 'baseUrl' in model.settings ? model.settings : null)) : model.settings;
  const toolMode = 'provider' in model ? model.toolMode : model.settings.toolMode === 'text' ? 'text' : 'tools';
  const playbook = input.playbook?.trim();
  return {
    technique: input.technique,
    variant: input.variant ?? null,
    model: details?.model ?? null,
    // The temperature the calls will be sent with, as the run records it: the fidelity's (paper: 0,
    // or --temperature), else the technique's own (AutoPlan decodes greedily), else the endpoint's.
    temperature: (input.fidelity ? resolveFidelity(techniqueFidelity(techniqueNamed(input.technique)), input.fidelity).temperature : null) ?? techniqueNamed(input.technique).temperature ?? details?.temperature ?? null,
    'token limit per call': details?.maxTokens ?? null,
    'step limit': input.maxSteps,
    'tool mode': toolMode,
    playbook: input.playbookVersion ?? (playbook ? `sha256:${createHash('sha256').update(playbook).digest('hex')}` : null),
  };
}

/** What a recorded question was produced with; null when it was recorded before results named their settings. */
export function recordedSettings(result: QuestionResult): ResumeSettings | null {
  const produced = result.producedBy;
  if (!produced) return null;
  return {
    technique: result.technique,
    variant: result.variant ?? null,
    model: produced.model.configured,
    temperature: produced.temperature,
    'token limit per call': produced.maxTokensPerCall,
    'step limit': produced.maxSteps,
    'tool mode': produced.toolMode,
    playbook: result.playbook ?? null,
  };
}

function shown(value: unknown): string {
  return value === null || value === undefined ? 'none' : typeof value === 'string' ? value : JSON.stringify(value);
}

/** "model scripted-a, now scripted-b; step limit 20, now 5": every setting that differs. */
export function settingDifferences(recorded: Record<string, unknown>, intended: Record<string, unknown>): string[] {
  const names = [...new Set([...Object.keys(recorded), ...Object.keys(intended)])];
  return names.filter((name) => shown(recorded[name]) !== shown(intended[name])).map((name) => `${name} ${shown(recorded[name])}, now ${shown(intended[name])}`);
}

/**
 * The settings and extensions a run's record holds beyond those named above (the fidelity,
 * the temperature a technique chose, whatever a technique adds to its run-start), compared
 * once the first new question of a resumed batch has run: they are known only from a run.
 */
export function recordedExtras(produced: ProducedBy): Record<string, unknown> {
  const extras: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(produced.settings)) if (name !== 'playbook' && name !== 'mode') extras[`setting ${name}`] = value;
  for (const [name, on] of Object.entries(produced.extensions)) extras[`extension ${name}`] = on ? 'on' : 'off';
  return extras;
}

export function resumeRefusal(dir: string, differences: readonly string[]): string {
  return `${dir} was decided with other settings (${differences.join('; ')}): its answers would count as this run's. Give another --out directory for the new settings, or run again with the recorded ones.`;
}
