/**
 * Degenerate replies: a small model under a grammar can fall into writing one short unit for
 * ever ("1.1.1.1…", "0000…") until the token cap, hundreds of tokens that make an unusable reply.
 * Caught as the text streams, such a reply is cut at once and asked again instead.
 */

/**
 * Longest unit looked for, and the fewest repeats and shortest run that count as degenerate: a
 * short unit 12 times (`1.` × 16), a longer one (a list item such as `"baltic_sea_2022", `,
 * seen 13 times over in a plan under load) 6 times.
 */
const longestUnit = 32;
const shortUnit = 8;
const fewestRepeats = (length: number): number => (length <= shortUnit ? 12 : 6);
const shortestRun = 32;

/** The unit the text's tail repeats degenerately (e.g. `"1."`), or null when it does not. */
export function repeatedTail(text: string): string | null {
  for (let length = 1; length <= longestUnit; length += 1) {
    const unit = text.slice(-length);
    if (unit.length < length) return null;
    let repeats = 1;
    let end = text.length - length;
    while (end >= length && text.slice(end - length, end) === unit) {
      repeats += 1;
      end -= length;
    }
    if (repeats >= fewestRepeats(length) && repeats * length >= shortestRun) return unit;
  }
  return null;
}
