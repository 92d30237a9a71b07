import type { CellValue } from '../contract/data';
import type { RunStatus } from '../contract/run';
import { diffSteps, type DiffLine } from '../audit/plan-diff';
import type { ReviewRecord } from '../audit/run-trace';

/**
 * How numbers, times and values read in every report format. Times are shown in UTC so a report
 * reads the same wherever it is opened or printed.
 */
export function formatCount(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}

export function formatDuration(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
}

export function formatTime(iso: string | null): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const two = (value: number): string => String(value).padStart(2, '0');
  return `${date.getUTCDate()} ${months[date.getUTCMonth()]} ${date.getUTCFullYear()}, ${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} UTC`;
}

export function formatBytes(bytes: number | null): string {
  if (bytes === null) return '—';
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** A result value as text; null is NULL, as the database would print it. */
export function formatValue(value: CellValue): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(12)));
  return String(value);
}

const statusLabels: Partial<Record<RunStatus, string>> & Record<string, string | undefined> = {
  running: 'Did not finish',
  answered: 'Answered',
  'step-limit': 'Stopped at the step limit',
  'token-limit': 'Stopped at the token limit',
  'time-limit': 'Stopped at the time limit',
  failed: 'Failed',
  stopped: 'Stopped by the analyst',
  cancelled: 'Cancelled',
  interrupted: 'Interrupted',
};

/** How a run's status reads in a report; a status added later reads as itself. */
export function statusLabel(status: RunStatus): string {
  return statusLabels[status] ?? status;
}

/** What a review point was about, as reports name it. */
export const reviewSubjectLabels = { query: 'query', replan: 're-plan', forecast: 'forecast', ranking: 'ranking', plan: 'plan graph' } as const;

export const reviewLabels = { approve: 'approved', edit: 'edited', skip: 'skipped', note: 'added a note to', stop: 'stopped the run at' } as const;

/**
 * The text a review concerned, as the report shows it: for an edit, the model's version against
 * the analyst's, line by line; otherwise the query or plan as it was proposed (approved,
 * annotated, skipped or left pending at a stop).
 */
export function reviewText(review: ReviewRecord): DiffLine[] {
  const lines = (text: string): string[] => text.split('\n');
  if (review.action === 'edit' && review.edited !== null) return diffSteps(lines(review.original), lines(review.edited));
  return lines(review.original).map((text) => ({ op: 'same', text }));
}

/** A review's text as a unified diff body (`-` the model's, `+` the analyst's, two spaces for kept lines). */
export function reviewTextPlain(review: ReviewRecord): string {
  return reviewText(review)
    .map((line) => `${line.op === 'added' ? '+' : line.op === 'removed' ? '-' : ' '} ${line.text}`)
    .join('\n');
}

/** A local model's thread choice: `1 (auto: 1 → 28.1, 2 → 7.4 tokens/s)` or `2 (set explicitly)`. */
export function threadsText(threads: { count: number; auto: boolean; measured: Record<string, number> }): string {
  if (!threads.auto) return `${threads.count} (set explicitly)`;
  const rates = Object.entries(threads.measured).map(([count, rate]) => `${count} → ${rate}`);
  return `${threads.count} (auto${rates.length ? `: ${rates.join(', ')} tokens/s` : ''})`;
}
