/**
 * Ranks measured candidates: pure, so a cell or a test can rank values however they were
 * obtained. The best is the first candidate (in the caller's order) within the relative
 * tolerance of the optimum, so float noise never picks the winner.
 */
import type { Candidate, WhatIfRow } from '../contract/whatif';

export interface Measured {
  candidate: Candidate;
  before: number;
  after: number;
  changedRows: number;
}

export interface Ranking {
  rows: WhatIfRow[];
  best: Candidate;
  margin: number | null;
  tied: Candidate[];
}

export function withinRelative(a: number, b: number, tolerance: number): boolean {
  if (a === b) return true;
  return Math.abs(a - b) <= tolerance * Math.max(Math.abs(a), Math.abs(b));
}

export function rankCandidates(measured: readonly Measured[], direction: 'maximize' | 'minimize', tolerance: number): Ranking {
  if (measured.length === 0) throw new Error('no candidates to rank');
  const better = (a: number, b: number): boolean => (direction === 'maximize' ? a > b : a < b);
  const optimum = measured.reduce((best, m) => (better(m.after, best) ? m.after : best), (measured[0] as Measured).after);
  const bestIndex = measured.findIndex((m) => withinRelative(m.after, optimum, tolerance));
  const best = measured[bestIndex] as Measured;

  const ranked = measured.map((m, index) => {
    const strictlyBetter = measured.filter((other) => better(other.after, m.after) && !withinRelative(other.after, m.after, tolerance)).length;
    const row: WhatIfRow = { candidate: m.candidate, before: m.before, after: m.after, delta: m.after - m.before, rank: strictlyBetter + 1, changedRows: m.changedRows };
    return { row, index };
  });
  ranked.sort((a, b) => (a.index === bestIndex ? -1 : b.index === bestIndex ? 1 : a.row.rank - b.row.rank || a.index - b.index));

  let runnerUp: number | null = null;
  for (let index = 0; index < measured.length; index += 1) {
    const value = (measured[index] as Measured).after;
    if (index !== bestIndex && (runnerUp === null || better(value, runnerUp))) runnerUp = value;
  }
  const margin = runnerUp === null ? null : direction === 'maximize' ? best.after - runnerUp : runnerUp - best.after;
  const tied = measured.filter((m) => withinRelative(m.after, best.after, tolerance)).map((m) => m.candidate);
  return { rows: ranked.map((r) => r.row), best: best.candidate, margin, tied };
}
