import type { Code, InlineCode, Nodes, Paragraph, Parents, RootContent, Text } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown, gfmToMarkdown } from 'mdast-util-gfm';
import { toMarkdown, type Handlers, type Unsafe } from 'mdast-util-to-markdown';
import { toString } from 'mdast-util-to-string';
import { gfm } from 'micromark-extension-gfm';
import { withinMarkdownBudget } from '../contract/markdown-budget';
import { markdownFence } from './markdown-text';

/**
 * Markdown written by the model (a rationale), an analyst (a note) or the engine (a run's closing
 * note), kept as Markdown for its emphasis, lists, tables and code, but unable to link, embed or
 * carry HTML in any Markdown renderer.
 *
 * The text is parsed into a syntax tree by the parser the notebook renders with (micromark with
 * GitHub's extensions, as react-markdown and remark-gfm read it), so it is read the way the
 * analyst saw it, code blocks (fenced or indented) and code spans included. Every node that
 * could link, embed or inject — links, images, their references and definitions, footnotes, raw
 * HTML — becomes the text it was written as, shown literally so that a reviewer sees the URL
 * rather than a live link. The tree is written back by mdast-util-to-markdown, which escapes
 * whatever would otherwise read as markup, with two additions:
 * - every `<` and `&` in text is a character reference (`&#x3C;`, `&#x26;`), not a backslash
 *   escape: renderers that predate CommonMark do not all honour `\<`, and every one decodes a
 *   reference, so no renderer can read a tag or an entity there;
 * - `$` is escaped, so that Jupyter sets no TeX ("costs $5 and $10").
 * A code span whose text could be markup if a renderer read it as prose after all (a `<` opening
 * a tag, an `&` opening a reference, a `](` or `][`) is written as escaped text: the same
 * characters without the code font, so safety never depends on agreeing where a span ends.
 */
export function markdownSanitized(text: string): string {
  // Too much markup to parse in reasonable time: verbatim in a fence, where nothing is markup.
  if (!withinMarkdownBudget(text)) return markdownFence(text);
  try {
    const tree = fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
    neutralise(tree, text, 0);
    return toMarkdown(tree, { extensions: [gfmToMarkdown()], bullet: '-', unsafe: alwaysEscaped, handlers: { text: textAsReferences } }).replace(/\n+$/, '');
  } catch {
    // Text no renderer could show as its author meant (the parser or writer ran out of stack on
    // it): shown verbatim in a fence, where nothing is markup, rather than failing the export.
    return text === '' ? '' : markdownFence(text);
  }
}

/**
 * How deep quotes, lists and emphasis may nest before the rest is shown as the text it was:
 * mdast-util-to-markdown takes seconds on a thousand nested emphases and overflows the stack on a
 * few thousand, which a model repeating one character can write; no one reads past a few levels.
 */
const deepestNesting = 24;

/** Escaped wherever they occur in text (no `inConstruct`: in every construct). */
const alwaysEscaped: Unsafe[] = [{ character: '<' }, { character: '&' }, { character: '$' }];

/** Text written as mdast-util-to-markdown writes it, but with `<` and `&` as character references rather than backslash escapes. */
const textAsReferences: Handlers['text'] = (node, _parent, state, info) => state.safe(node.value, { ...info, encode: ['<', '&'] });

/** Code span text that would be a tag, an entity or a link if read as prose. */
const markupIfProse = /<[A-Za-z/!?]|&[#A-Za-z0-9]|\][([]/;

/** Node types that link, embed or carry HTML: written out as the text they were. */
const shownLiterally = new Set<Nodes['type']>(['link', 'linkReference', 'image', 'imageReference', 'definition', 'footnoteReference', 'footnoteDefinition', 'html']);
/** Parents whose children are blocks (so a literal there must be a paragraph, not bare text). */
const blockParents = new Set<Nodes['type']>(['root', 'blockquote', 'listItem', 'footnoteDefinition']);

function neutralise(parent: Parents, source: string, depth: number): void {
  const inBlock = blockParents.has(parent.type);
  parent.children = parent.children.map((child) => {
    if (shownLiterally.has(child.type) || ('children' in child && depth >= deepestNesting)) return literal(sourceOf(child, source), inBlock);
    if (child.type === 'code') return parent.type === 'root' ? plainCode(child) : codeAsLines(child);
    if (child.type === 'inlineCode' && markupIfProse.test(child.value)) return literal((child satisfies InlineCode).value, false);
    if ('children' in child) neutralise(child, source, depth + 1);
    return child;
  }) as typeof parent.children;
}

/** What the author wrote for a node: its slice of the text (the parser records offsets), else its text content. */
function sourceOf(node: RootContent, source: string): string {
  if (node.type === 'html') return node.value;
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  return start !== undefined && end !== undefined ? source.slice(start, end) : toString(node);
}

function literal(value: string, inBlock: boolean): RootContent {
  const text: Text = { type: 'text', value };
  return inBlock ? ({ type: 'paragraph', children: [text] } satisfies Paragraph) : text;
}

/**
 * A code block inside a list, quote or footnote, written as escaped lines of text: not every
 * renderer reads a fence in a container (Python-Markdown's does not, and would pass the HTML in
 * it through), so only a fence in the first column is kept as code.
 */
function codeAsLines(code: Code): Paragraph {
  const children: Paragraph['children'] = [];
  code.value.split('\n').forEach((line, index) => {
    if (index > 0) children.push({ type: 'break' });
    children.push({ type: 'text', value: line });
  });
  return { type: 'paragraph', children };
}

/** A code block keeps its text; its info string keeps only a plain language word (nothing else is carried into our fence line). */
function plainCode(code: Code): Code {
  const language = code.lang ?? '';
  return { type: 'code', value: code.value, lang: /^[\w+#.-]{1,32}$/.test(language) ? language : null };
}
