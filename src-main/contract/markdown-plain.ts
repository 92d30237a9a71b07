/**
 * Markdown read as the plain text a reader sees: what a note says without its markup, for a
 * search snippet ("**Revenue** fell" → "Revenue fell"). Not a renderer: it never produces HTML,
 * and text that only looks like markup inside code is left as it is. Line by line, so a
 * snippet's place in the text stays close to where it was.
 */
export function markdownToPlainText(markdown: string): string {
  const lines = markdown.split(/\r\n?|\n/);
  const out: string[] = [];
  let inFence = false;
  for (const line of lines) {
    if (/^\s{0,3}(```|~~~)/.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence) {
      out.push(line);
      continue;
    }
    // Rules and a table's alignment row say nothing in words.
    if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line) || /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(line)) continue;
    out.push(inlinePlain(blockPlain(line)));
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trim();
}

/** A line without its block markers: heading hashes, quote marks, list bullets and task boxes, table pipes. */
function blockPlain(line: string): string {
  let text = line.replace(/^\s{0,3}#{1,6}\s+/, '').replace(/\s+#+\s*$/, '');
  while (/^\s{0,3}>\s?/.test(text)) text = text.replace(/^\s{0,3}>\s?/, '');
  text = text.replace(/^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?/, '');
  if (/^\s*\|.*\|\s*$/.test(text)) text = text.trim().slice(1, -1).split('|').map((cell) => cell.trim()).join(' · ');
  return text;
}

/** Stands in for a code span while the rest of the line is read (a character no text types). */
const codeMark = '\uE000';

/** Inline markup out: code spans kept as their text, images as their alt text, links as their words, emphasis dropped, escapes resolved. */
function inlinePlain(text: string): string {
  const codes: string[] = [];
  // Code spans first, set aside so nothing inside them is read as markup.
  let plain = text.replace(/(`+)([^`]|[^`].*?[^`])\1(?!`)/g, (_, __, code: string) => {
    codes.push(code.trim());
    return `${codeMark}${codes.length - 1}${codeMark}`;
  });
  plain = plain
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1')
    .replace(/<((?:https?|mailto):[^>\s]+)>/g, '$1')
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, '$2')
    .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, '$1')
    .replace(/(^|[^\w*])\*(?=\S)(.+?)(?<=\S)\*(?!\w)/g, '$1$2')
    // Underscores inside words (snake_case names) are not emphasis.
    .replace(/(^|[^\w])_(?=\S)(.+?)(?<=\S)_(?!\w)/g, '$1$2')
    .replace(/\\([\\`*_{}[\]()#+\-.!|~>])/g, '$1');
  return plain.replace(new RegExp(`${codeMark}(\\d+)${codeMark}`, 'g'), (_, index: string) => codes[Number(index)] ?? '');
}
