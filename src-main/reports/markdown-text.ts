/**
 * Text made safe for a Markdown document. Markdown viewers render inline HTML and follow links,
 * so no text from the model, the data or a bundle may form a link, an autolink, a reference
 * definition, an HTML tag or an image in a Markdown report.
 *
 * `<`, `>` and `&` become character references rather than backslash escapes: a GFM autolink
 * literal (`http://x/\<img …>` in marked or micromark) swallows the backslash into its URL and
 * frees the `<` after it, while a character reference is always plain text and never markup.
 * Brackets, which every link, image, footnote and reference definition needs, are escaped.
 */

const references: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

function withReferences(text: string, characters: RegExp): string {
  return text.replace(characters, (character) => references[character] ?? character);
}

/** Plain text (a thought, a value, a reason) shown literally: every Markdown and HTML character is neutralised. */
export function markdownLiteral(text: string): string {
  return withReferences(text, /[&<>]/g).replace(/[\\`*_[\]#|~!]/g, '\\$&');
}

/** Plain text in a table cell: literal, on one line (a lone carriage return ends a line too). */
export function markdownCell(text: string): string {
  return markdownLiteral(text).replace(/\r\n?|\n/g, ' ');
}

/** Text as an inline code span that no backtick in it can close, on one line. */
export function markdownCode(text: string): string {
  const line = text.replace(/\r\n?|\n/g, ' ');
  if (line === '') return '';
  const ticks = '`'.repeat(Math.max(0, ...[...line.matchAll(/`+/g)].map((match) => match[0].length)) + 1);
  // CommonMark strips one space on each side when both have one: pad text that touches a backtick.
  const pad = line.startsWith('`') || line.endsWith('`') || (line.startsWith(' ') && line.endsWith(' ')) ? ' ' : '';
  return `${ticks}${pad}${line}${pad}${ticks}`;
}

/** A fenced code block whose fence no backtick run in the text can close. */
export function markdownFence(text: string, language = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${text}\n${fence}`;
}
