/**
 * Text made safe for a Markdown document. Markdown viewers render inline HTML, so nothing from
 * the model or the data may reach a Markdown report unescaped.
 */

/** Plain text (a thought, a value, a reason) shown literally: every Markdown and HTML character is escaped. */
export function markdownLiteral(text: string): string {
  return text.replace(/[\\`*_[\]<>#|~&!]/g, '\\$&');
}

/** Plain text in a table cell: literal, on one line. */
export function markdownCell(text: string): string {
  return markdownLiteral(text).replace(/\r?\n/g, ' ');
}

/**
 * Markdown written by the model (a rationale) kept as Markdown, but with raw HTML made inert
 * and link targets other than http(s), mailto and in-page anchors disabled.
 */
export function markdownSanitized(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/\]\(\s*<?(?!https?:|mailto:|#)[a-z][\w+.-]*:/gi, '](#blocked-link:');
}

/** A fenced code block whose fence no backtick run in the text can close. */
export function markdownFence(text: string, language = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${text}\n${fence}`;
}
