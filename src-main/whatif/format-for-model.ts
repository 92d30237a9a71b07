import type { WhatIfResult } from '../contract/whatif';

/** A what-if result as the model reads it: the ranking first, the best rows, and what to beware of. */
export function formatWhatIfForModel(result: WhatIfResult, maxRows = 12): string {
  const lines = result.rows.slice(0, maxRows).map((row) => `${row.rank} | ${String(row.candidate)} | ${row.before} | ${row.after} | ${row.delta} | ${row.changedRows}`);
  const more = result.rows.length > maxRows ? `\n… ${result.rows.length - maxRows} more candidates, all ranked lower` : '';
  const tied = result.tied.length > 1 ? ` (tied with ${result.tied.filter((candidate) => candidate !== result.best).map(String).join(', ')})` : '';
  return [
    `what-if on a throwaway copy (the database itself is unchanged); objective ${result.direction === 'maximize' ? 'maximized' : 'minimized'}`,
    `best: ${String(result.best)}${tied}; margin over the runner-up: ${result.margin ?? 'n/a, single candidate'}`,
    ...result.notes.map((note) => `note: ${note}`),
    'rank | candidate | before | after | delta | changed rows',
    ...lines,
  ].join('\n') + more;
}
