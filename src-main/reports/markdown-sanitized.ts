import { markdownFence } from './markdown-text';

/**
 * Markdown written by the model (a rationale), an analyst (a note) or the engine (a run's closing
 * note), kept as Markdown for its emphasis, lists and code, but unable to link or embed, and
 * reading in any Markdown renderer as it reads in the notebook:
 *
 * - Prose: `<` and `&` become character references (no HTML, no autolink, no entity trickery),
 *   brackets are escaped (no link, image, footnote or reference definition) and so is `$` (no
 *   TeX in Jupyter). A backslash
 *   escape the author wrote (`\<`, `\[`, `\*`) stays an escape of the same character, so it shows
 *   that character and never the backslash, and no escape of ours can be undone by it.
 * - Fenced code blocks opening at the start of a line are written again inside a fence of our
 *   own, after a blank line, with their text untouched: nothing in a fence is markup, so a query
 *   such as `WHERE flow < 3` shows as written instead of as `&lt;`. Any other line that starts
 *   like a fence (indented, in a list or a quote) is neutralised, so no fence we did not write
 *   can swallow ours and turn its text into prose.
 * - Inline code spans on one line keep their text, except for what could become markup if a
 *   renderer read the span as prose after all (a `<` opening a tag, an `&` opening a reference,
 *   a `](` or `][`): those are escaped, so safety never depends on agreeing with the renderer
 *   about where a span is.
 */
export function markdownSanitized(text: string): string {
  return splitFencedCode(text)
    .map((block) => (block.kind === 'code' ? markdownFence(block.text, block.language) : block.text.split('\n').map(proseLine).join('\n')))
    .filter((part) => part !== '')
    .join('\n\n');
}

type Block = { kind: 'prose'; text: string } | { kind: 'code'; text: string; language: string };

/** The text cut into prose and the fenced code blocks that open in the first column (where no container can hold them). */
function splitFencedCode(text: string): Block[] {
  const blocks: Block[] = [];
  let prose: string[] = [];
  let code: { fence: string; language: string; lines: string[] } | null = null;
  const flushProse = (): void => {
    if (prose.length) blocks.push({ kind: 'prose', text: prose.join('\n') });
    prose = [];
  };
  for (const line of text.split(/\r\n?|\n/)) {
    if (code) {
      const closing = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line)?.[1];
      if (closing && closing[0] === code.fence[0] && closing.length >= code.fence.length) {
        blocks.push({ kind: 'code', text: code.lines.join('\n'), language: code.language });
        code = null;
      } else {
        code.lines.push(line);
      }
      continue;
    }
    const opening = /^(`{3,}|~{3,})(.*)$/.exec(line);
    // CommonMark: a backtick fence's info string holds no backtick (such a line is an inline code span).
    if (opening && !(opening[1]?.startsWith('`') && opening[2]?.includes('`'))) {
      flushProse();
      code = { fence: opening[1] as string, language: infoLanguage(opening[2] ?? ''), lines: [] };
    } else {
      prose.push(line);
    }
  }
  flushProse();
  // An unclosed fence runs to the end of the text, as CommonMark reads it.
  if (code) blocks.push({ kind: 'code', text: code.lines.join('\n'), language: code.language });
  return blocks;
}

/** The fence's language word when it is a plain name; anything else is dropped rather than carried into our fence line. */
function infoLanguage(info: string): string {
  const word = info.trim().split(/\s+/)[0] ?? '';
  return /^[\w+#.-]{1,32}$/.test(word) ? word : '';
}

/**
 * `$` too: Jupyter front ends read `$…$` as TeX, so "costs $5 and $10" would set "5 and " as
 * maths; `\$` is a CommonMark escape every renderer shows as `$`.
 */
const proseEscapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '[': '\\[', ']': '\\]', '\\': '\\\\', $: '\\$' };
const asciiPunctuation = /[!-/:-@[-`{-~]/;
/** Where a line would open a fence inside a container or after indentation: its first fence character. */
const fenceLike = /^(?:[ \t]*(?:>|[-*+]|\d{1,9}[.)]))*[ \t]*(?=`{3}|~{3})/;

function proseLine(line: string): string {
  const fenceAt = fenceLike.exec(line)?.[0].length ?? -1;
  let out = '';
  let index = 0;
  while (index < line.length) {
    const character = line[index] as string;
    const next = line[index + 1];
    if (index === fenceAt) {
      // `\`` and `\~` show the character but can open no fence.
      out += `\\${character}`;
      index++;
    } else if (character === '\\' && next !== undefined && asciiPunctuation.test(next)) {
      // The author's escape: the same character, escaped our way (an escaped `<` is the reference `&lt;`).
      out += proseEscapes[next] ?? `\\${next}`;
      index += 2;
    } else if (character === '`') {
      const ticks = /^`+/.exec(line.slice(index))?.[0] ?? '`';
      const close = closingRun(line, index + ticks.length, ticks.length);
      if (close === -1) {
        out += ticks;
        index += ticks.length;
      } else {
        out += `${ticks}${codeSpanText(line.slice(index + ticks.length, close))}${ticks}`;
        index = close + ticks.length;
      }
    } else {
      // A lone backslash (before a letter, a space or the line's end) escapes nothing and stays.
      out += character === '\\' ? character : (proseEscapes[character] ?? character);
      index++;
    }
  }
  return out;
}

/** Where the backtick run of exactly `length` that closes a code span starts, or -1 (CommonMark: no escapes inside a span). */
function closingRun(line: string, from: number, length: number): number {
  for (const match of line.slice(from).matchAll(/`+/g)) if (match[0].length === length) return from + match.index;
  return -1;
}

/**
 * A code span's text, as written but for what would be markup if read as prose: a `<` that opens
 * a tag, autolink or comment, an `&` that opens a reference, and a `]` that would join a link
 * (with any backslashes before it, so none of them escapes our escape).
 */
function codeSpanText(text: string): string {
  return text.replace(/<(?=[A-Za-z/!?])|&(?=[#A-Za-z0-9])|(\\*)\](?=[([])/g, (match, slashes: string | undefined) =>
    slashes === undefined ? (match === '<' ? '&lt;' : '&amp;') : `${slashes.replace(/\\/g, '\\\\')}\\]`,
  );
}
