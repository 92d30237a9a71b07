import type { Element, ElementContent, Nodes as HastNodes, Root as HastRoot } from 'hast';
import { toHtml } from 'hast-util-to-html';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { toHast } from 'mdast-util-to-hast';
import { gfm } from 'micromark-extension-gfm';
import { isExternalLink, withinMarkdownBudget } from '../contract';
import { html, trusted, type Html } from './html-escape';

/**
 * Markdown (a rationale, an analyst's note) as report HTML, read by the same parser family the
 * notebook renders with (react-markdown is micromark → mdast → hast, with GFM), so a note reads
 * the same in the notebook and in every export: raw HTML in the text is shown as the text it is
 * (as react-markdown does), a link leads only to http(s) or mail (contract/links.ts, the
 * notebook's rule) and shows its address on hover, any other link is its text alone, and an
 * image becomes its alt text, because a report must open offline with no external asset.
 */
export function markdownToHtml(text: string): Html {
  // Parsing would take seconds or run out of stack (contract/markdown-budget.ts): the text as it is.
  if (!withinMarkdownBudget(text)) return asPlainText(text);
  try {
    const tree = toHast(fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }), { allowDangerousHtml: true });
    const root: HastRoot = tree.type === 'root' ? tree : { type: 'root', children: safeNode(tree) };
    return trusted(toHtml(safeTree(root), { characterReferences: { useNamedReferences: true } }));
  } catch {
    return asPlainText(text);
  }
}

function asPlainText(text: string): Html {
  return html`<p class="muted">Shown as plain text: it holds more emphasis, brackets or nesting than the report renders as Markdown.</p><pre>${text}</pre>`;
}

/** The tree with every node that could carry markup of its own turned into text, in place. */
function safeTree(root: HastRoot): HastRoot {
  root.children = root.children.flatMap((child) => safeNode(child as HastNodes));
  return root;
}

function safeNode(node: HastNodes): ElementContent[] {
  if (node.type === 'raw') return [{ type: 'text', value: node.value }];
  if (node.type === 'text' || node.type === 'comment') return node.type === 'text' ? [node] : [];
  if (node.type !== 'element') return [];
  const element = node;
  element.children = element.children.flatMap((child) => safeNode(child));
  if (element.tagName === 'img') return [imagePlaceholder(element)];
  if (element.tagName === 'a') return [safeLink(element)];
  return [element];
}

function imagePlaceholder(image: Element): Element {
  const alt = typeof image.properties['alt'] === 'string' ? image.properties['alt'] : '';
  return { type: 'element', tagName: 'span', properties: { className: ['image-placeholder'] }, children: [{ type: 'text', value: `[image: ${alt}]` }] };
}

function safeLink(link: Element): Element {
  const href = typeof link.properties['href'] === 'string' ? link.properties['href'] : '';
  if (!isExternalLink(href)) return { type: 'element', tagName: 'span', properties: {}, children: link.children };
  return { type: 'element', tagName: 'a', properties: { href, title: href, rel: ['noreferrer', 'noopener'] }, children: link.children };
}
