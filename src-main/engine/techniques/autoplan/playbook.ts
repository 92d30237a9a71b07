/**
 * Playbook versions: every iteration's playbook with its provenance (the batch's questions,
 * each job's trajectory, result and reflections), the batch success rate and cost, and a
 * sha256 of its canonical JSON, chained to the previous version's hash. The record carries a
 * `review` field for the analyst's accept / edit / reject and a pin (the app's Playbooks
 * view, a later slice); training writes every version as `proposed`.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../audit/canonical-json';
import { seededRandom } from '../dellma/random';

export interface TrajectoryStep {
  thought: string;
  rawAction: string;
  /** The action as carried out, or null when neither the fast path nor the formalizer could read it. */
  action: string | null;
  /** True when the formalizer model call was needed. */
  formalizerCalled: boolean;
  observation: string;
}

export interface JobRecord {
  questionId: string;
  objective: string;
  steps: TrajectoryStep[];
  decision: string | null;
  success: boolean;
  summary: string;
  flaws: string | null;
  revision: string | null;
}

export interface Cost {
  calls: number;
  promptTokens: number;
  completionTokens: number;
}

export interface PlaybookVersion {
  format: 'decision-workbench/playbook-version';
  version: 1;
  taskType: { scenario: string; db: string };
  /** 1 for the first learned playbook. */
  index: number;
  /** The hash of the version it was rewritten from; null for the first. */
  parent: string | null;
  playbook: string;
  /** The playbook the batch ran with (the parent's text; empty for the first batch). */
  previous: string;
  batch: { questionIds: string[] };
  jobs: JobRecord[];
  successRate: number;
  cost: Cost;
  settings: { model: string; batchSize: number; temperature: number; reflection: 'sir' | 'summary-only'; maxActions: number; split: string | null };
  /** Names and values of the training questions found in the playbook text: it is not general. */
  specifics: string[];
  review: { status: 'proposed' | 'accepted' | 'edited' | 'rejected'; pinned: boolean };
  /** sha256 (hex) of the canonical JSON of every other field. */
  hash: string;
}

export function versionHash(version: Omit<PlaybookVersion, 'hash'>): string {
  return createHash('sha256').update(canonicalJson(version)).digest('hex');
}

export function sealVersion(version: Omit<PlaybookVersion, 'hash'>): PlaybookVersion {
  return { ...version, hash: versionHash(version) };
}

/** Zero and small whole numbers turn up in any procedure (step numbers, counts): they tell nothing. */
function isDistinctive(value: number): boolean {
  return Number.isFinite(value) && !(Number.isInteger(value) && Math.abs(value) < 10);
}

/** Whether `value` is printed in `text`, in full or rounded to at least two decimals. */
function appearsIn(value: number, text: string): boolean {
  for (const match of text.matchAll(/-?\d+(?:\.\d+)?/g)) {
    const number = Number(match[0]);
    if (Math.abs(number - value) <= 1e-9 * Math.max(1, Math.abs(value))) return true;
    const decimals = /\.(\d+)/.exec(match[0])?.[1]?.length ?? 0;
    if (decimals >= 2 && Math.abs(number - value) <= 0.5 * 10 ** -decimals) return true;
  }
  return false;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The training questions' candidate names and decisive values that a playbook names: a
 * playbook must stay general. Names are matched as whole words, case-insensitively (short
 * names such as a one- or two-digit building id are too common to tell anything); values only
 * when distinctive.
 */
export function findSpecifics(playbook: string, names: readonly string[], values: readonly number[]): string[] {
  const found = new Set<string>();
  for (const name of names) {
    const spaced = name.replace(/_/g, ' ');
    if (name.trim().length < 3) continue;
    for (const form of new Set([name, spaced])) {
      if (new RegExp(`(^|[^\\p{L}\\p{N}_])${escapeRegExp(form)}($|[^\\p{L}\\p{N}_])`, 'iu').test(playbook)) found.add(name);
    }
  }
  for (const value of values) if (isDistinctive(value) && appearsIn(value, playbook)) found.add(String(value));
  return [...found].sort();
}

/** `SEED:FRACTION`, e.g. `7:0.5`. */
export function parseSplit(text: string): { seed: number; fraction: number } {
  const match = /^(-?\d+):(0(?:\.\d+)?|1(?:\.0+)?|\.\d+)$/.exec(text.trim());
  if (!match) throw new Error(`--split must be SEED:TRAIN_FRACTION, e.g. 7:0.5, got "${text}"`);
  const fraction = Number(match[2]);
  if (!(fraction > 0 && fraction <= 1)) throw new Error(`--split's training fraction must be above 0 and at most 1, got ${match[2] ?? ''}`);
  return { seed: Number(match[1]), fraction };
}

/** A seeded split (Fisher–Yates shuffle): the training part first, the held-out rest second, each in shuffled order. */
export function splitIds<T>(items: readonly T[], seed: number, fraction: number): { train: T[]; heldOut: T[] } {
  const shuffled = [...items];
  const random = seededRandom(seed);
  for (let index = shuffled.length - 1; index > 0; index -= 1) {
    const other = random.int(index + 1);
    [shuffled[index], shuffled[other]] = [shuffled[other] as T, shuffled[index] as T];
  }
  const cut = Math.max(1, Math.round(shuffled.length * fraction));
  return { train: shuffled.slice(0, cut), heldOut: shuffled.slice(cut) };
}

/** Sequential batches of `size` (the last may be smaller), at most `iterations` of them. */
export function batches<T>(items: readonly T[], size: number, iterations?: number): T[][] {
  const all: T[][] = [];
  for (let start = 0; start < items.length; start += size) all.push(items.slice(start, start + size));
  return iterations === undefined ? all : all.slice(0, iterations);
}

/** The numbered or bulleted steps of a playbook, for the run's plan cell. */
export function playbookSteps(playbook: string): string[] {
  const steps = playbook
    .split('\n')
    .map((line) => /^\s*(?:\d+[.)]|[-*•])\s+(.*\S)\s*$/.exec(line)?.[1])
    .filter((step): step is string => step !== undefined);
  return steps.length > 0 ? steps : playbook.split('\n').map((line) => line.trim()).filter((line) => line !== '');
}

/** The playbook as Markdown, with its provenance, for the analyst to read. */
export function versionMarkdown(version: PlaybookVersion): string {
  const lines = [
    `# Playbook ${version.taskType.scenario} × ${version.taskType.db}, version ${version.index}`,
    '',
    `- hash: \`${version.hash}\``,
    `- parent: ${version.parent === null ? 'none' : `\`${version.parent}\``}`,
    `- batch: ${version.batch.questionIds.join(', ')}`,
    `- batch success: ${(version.successRate * 100).toFixed(0)}% (${version.jobs.filter((job) => job.success).length}/${version.jobs.length})`,
    `- cost: ${version.cost.calls} model calls, ${version.cost.promptTokens} prompt + ${version.cost.completionTokens} completion tokens`,
    `- review: ${version.review.status}${version.review.pinned ? ', pinned' : ''}`,
    ...(version.specifics.length > 0 ? [`- **not general**: names ${version.specifics.join(', ')} from the training questions`] : []),
    '',
    '## Playbook',
    '',
    version.playbook,
    '',
  ];
  return lines.join('\n');
}
