import type { Nodes, Parents } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { withinMarkdownBudget } from '../contract/markdown-budget';

/**
 * Markdown as the plain text a reader sees: what a note (or a model's thought, question or
 * rationale) says without its markup, for a search snippet ("**Revenue** fell" → "Revenue
 * fell"). The text is parsed by micromark with GitHub's extensions, as the notebook renders it
 * (react-markdown with remark-gfm), so it is read the way the analyst saw it: a code span keeps
 * the stars inside it, a setext heading loses its underline, a reference link its definition,
 * a table becomes its cells. Never HTML: raw HTML is kept as the text it was written as, as
 * the notebook shows it. Each block is a line of its own.
 *
 * Text over the Markdown budget (which the notebook shows verbatim) and text the parser cannot
 * read are returned as they are.
 */
export function markdownToPlainText(markdown: string): string {
  if (!withinMarkdownBudget(markdown)) return markdown;
  try {
    const tree = fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
    return blockLines(tree).join('\n').trim();
  } catch {
    return markdown;
  }
}

/** A block container's text: each block on its own line(s). */
function blockLines(parent: Parents): string[] {
  const lines: string[] = [];
  for (const child of parent.children) lines.push(...blockText(child));
  return lines;
}

function blockText(node: Nodes): string[] {
  switch (node.type) {
    case 'paragraph':
    case 'heading':
    case 'tableCell':
      return [inlineText(node)];
    case 'code':
      return node.value.split('\n');
    case 'html':
      return [node.value];
    // A table row reads as its cells side by side.
    case 'tableRow':
      return [node.children.map((cell) => inlineText(cell).trim()).join(' · ')];
    // Rules and link definitions say nothing in words.
    case 'thematicBreak':
    case 'definition':
      return [];
    case 'root':
    case 'blockquote':
    case 'list':
    case 'listItem':
    case 'table':
    case 'footnoteDefinition':
      return blockLines(node);
    default:
      return [inlineText(node)];
  }
}

/** Phrasing content as its words: emphasis dropped, links as their text, images as their alt text, code spans as their code. */
function inlineText(node: Nodes): string {
  switch (node.type) {
    case 'text':
    case 'inlineCode':
    case 'html':
      return node.value;
    case 'break':
      return '\n';
    case 'image':
    case 'imageReference':
      return node.alt ?? '';
    case 'footnoteReference':
      return `[^${node.label ?? node.identifier}]`;
    default:
      return 'children' in node ? node.children.map((child) => inlineText(child as Nodes)).join('') : '';
  }
}
