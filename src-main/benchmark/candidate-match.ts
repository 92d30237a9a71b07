/**
 * Turns the model's decision text into one of the simulator's candidates (trade node names,
 * building ids), forgiving what a person would forgive: case, surrounding quotes and
 * punctuation, spaces versus underscores, and a label around the name ("building 3197",
 * "Trade node: Krakow."). Anything else stays unmatched, so an answer outside the candidate
 * set is reported as such instead of being guessed into it: a label that negates a name ("not
 * krakow", "anything but krakow", "avoid krakow") is `negated`, one that names several
 * candidates ("krakow or lubeck") `ambiguous`, and neither is credited to any candidate.
 */

export type MatchRule = 'exact' | 'normalized' | 'contained' | 'ambiguous' | 'negated' | 'none' | 'no-decision';

export interface CandidateMatch {
  /** The decision as the model gave it; null when the run gave none. */
  raw: string | null;
  /** The candidate it names, spelled as the simulator spells it; null when none or several fit. */
  matched: string | null;
  rule: MatchRule;
  /** For `ambiguous`: the candidates the text names; for `negated`: the candidates it negates or sets aside. */
  alternatives: string[];
}

/** Lower case, quotes and edge punctuation dropped, runs of spaces/underscores/hyphens as one `_`. */
export function normalizeName(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/^["'`“”‘’([{<\s]+|["'`“”‘’)\]}>.,;:!?\s]+$/g, '')
    .replace(/[\s_-]+/g, '_');
}

const MAX_LABEL_LENGTH = 80;

/**
 * Words and phrases that turn a name into its opposite or set it aside ("not krakow", "krakow is
 * not…", "anything but krakow", "avoid krakow", "instead of krakow", "krakow isn't…"). Read on the
 * lower-cased text with spaces, underscores and hyphens as one space; "no" alone is left out,
 * since "building no. 1485" is a label.
 */
const NEGATION = /(^|[^a-z0-9])(not|never|nor|neither|avoid(s|ing)?|except|excluding|exclude|without|instead|rather than|anything but|everything but|all but|other than|apart from|besides|[a-z]+n['’]t)($|[^a-z0-9])/;

function negates(text: string): boolean {
  return NEGATION.test(text.toLowerCase().replace(/[\s_-]+/g, ' '));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function matchDecision(raw: string | null, candidates: readonly string[]): CandidateMatch {
  if (raw === null || raw.trim() === '') return { raw, matched: null, rule: 'no-decision', alternatives: [] };
  if (candidates.includes(raw)) return { raw, matched: raw, rule: 'exact', alternatives: [] };
  const wanted = normalizeName(raw);
  const byName = candidates.filter((candidate) => normalizeName(candidate) === wanted);
  if (byName.length === 1) return { raw, matched: byName[0] as string, rule: 'normalized', alternatives: [] };
  if (byName.length > 1) return { raw, matched: null, rule: 'ambiguous', alternatives: byName };
  // A candidate named as a whole word inside a short label, e.g. "building_3197" or "node: krakow";
  // a long text is an explanation, not a name, and is left unmatched.
  if (wanted.length > MAX_LABEL_LENGTH) return { raw, matched: null, rule: 'none', alternatives: [] };
  const contained = candidates.filter((candidate) => {
    const name = normalizeName(candidate);
    return name !== '' && new RegExp(`(^|[^a-z0-9])${escapeRegExp(name)}($|[^a-z0-9])`).test(wanted);
  });
  // Prefer the longest names: "north_sea" inside "the_north_sea_node" must not also count "sea".
  const longest = contained.filter((candidate) => !contained.some((other) => other !== candidate && normalizeName(other).includes(normalizeName(candidate))));
  // A label that negates or sets aside a name chooses nothing it names: "not krakow" is no vote for krakow.
  if (longest.length > 0 && negates(raw)) return { raw, matched: null, rule: 'negated', alternatives: longest };
  if (longest.length === 1) return { raw, matched: longest[0] as string, rule: 'contained', alternatives: [] };
  if (longest.length > 1) return { raw, matched: null, rule: 'ambiguous', alternatives: longest };
  return { raw, matched: null, rule: 'none', alternatives: [] };
}
