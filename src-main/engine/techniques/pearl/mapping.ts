/**
 * The decision normaliser's code steps (SPECS.md §0.2): an answer that is exactly a
 * candidate's name, then one that is a name up to letter case, maps without a model call. The
 * model's mapping (paper Fig. 5) is the last resort, and its result is checked here too, so a
 * decision that names no candidate is counted as a mapping error, apart from wrong decisions.
 */
export function mapAnswer(answer: string, candidates: readonly string[] | null): { decision: string; method: 'exact' | 'case-insensitive' } | null {
  if (!candidates) return null;
  const text = answer.trim().replace(/^["'`]|["'`.]$/g, '');
  const exact = candidates.find((candidate) => candidate === text);
  if (exact !== undefined) return { decision: exact, method: 'exact' };
  const folded = candidates.find((candidate) => candidate.toLowerCase() === text.toLowerCase());
  return folded === undefined ? null : { decision: folded, method: 'case-insensitive' };
}
