import type { Nodes } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { toString } from 'mdast-util-to-string';
import { gfm } from 'micromark-extension-gfm';
import { describe, expect, it } from 'vitest';
import { markdownSanitized } from '../../../src-main/reports/markdown-sanitized';
import { markdownFence } from '../../../src-main/reports/markdown-text';

/**
 * Notes, rationales and closing notes in the Markdown and Jupyter exports: read with the parser
 * the notebook renders with, written back unable to link, embed or carry HTML, and showing what
 * the author wrote.
 */
function parsed(markdown: string): Nodes {
  return fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
}

function typesIn(node: Nodes): string[] {
  return [node.type, ...('children' in node ? node.children.flatMap((child) => typesIn(child)) : [])];
}

/**
 * Node types that link, embed or carry HTML. A web address in text is still made a link by GFM
 * renderers (their autolink literal reads past escapes, micromark's too), as the notebook shows it:
 * such a link, to the http(s) address it shows, is the one kind allowed.
 */
function linkingNodes(node: Nodes): string[] {
  const own = forbidden.includes(node.type) && !(node.type === 'link' && /^https?:\/\//.test(node.url) && node.url.endsWith(toString(node).replace(/^www\./, ''))) ? [node.type] : [];
  return [...own, ...('children' in node ? node.children.flatMap((child) => linkingNodes(child)) : [])];
}

const forbidden: string[] = ['link', 'linkReference', 'image', 'imageReference', 'definition', 'footnoteReference', 'footnoteDefinition', 'html'];

describe('markdownSanitized', () => {
  it('shows links, images, references, footnotes and HTML as the text they were written as', () => {
    const cases: [string, string][] = [
      ['[x](vbscript:foo) and ![logo](https://example.com/l.png)', '[x](vbscript:foo) and ![logo](https://example.com/l.png)'],
      ['[click][a]\n\n[a]: javascript:alert(1)', '[click][a][a]: javascript:alert(1)'],
      ['see [^1]\n\n[^1]: javascript:alert(1)', 'see [^1][^1]: javascript:alert(1)'],
      ['<script>alert(1)</script>', '<script>alert(1)</script>'],
      ['a <img src=x onerror=alert(1)> b', 'a <img src=x onerror=alert(1)> b'],
      ['<javascript:alert(1)>', '<javascript:alert(1)>'],
    ];
    for (const [written, shown] of cases) {
      const output = markdownSanitized(written);
      const tree = parsed(output);
      expect(linkingNodes(tree), output).toEqual([]);
      // The text content (paragraphs joined): every character the author wrote, none lost to markup.
      expect(toString(tree, { includeHtml: false }), output).toBe(shown);
    }
  });

  it('keeps emphasis, lists, quotes, tables and headings as Markdown', () => {
    const output = markdownSanitized('# Plan\n\n- **krakow** first\n- [ ] check *lübeck*\n\n> quoted\n\n| node | value |\n| --- | --- |\n| krakow | 5.665 |');
    expect(output).toBe('# Plan\n\n- **krakow** first\n- [ ] check *lübeck*\n\n> quoted\n\n| node   | value |\n| ------ | ----- |\n| krakow | 5.665 |');
  });

  it('keeps first-column code blocks, fenced or indented, with their text untouched', () => {
    expect(markdownSanitized('Query:\n\n```sql\nSELECT * FROM flow WHERE flow < 3 AND a <> b\n```')).toBe('Query:\n\n```sql\nSELECT * FROM flow WHERE flow < 3 AND a <> b\n```');
    // Indented code (four spaces) was escaped as prose by the hand-written sanitizer before.
    expect(markdownSanitized('Query:\n\n    SELECT name FROM trade_node\n    WHERE local_value > 3 & 1 <b>')).toBe('Query:\n\n```\nSELECT name FROM trade_node\nWHERE local_value > 3 & 1 <b>\n```');
    // A fence whose text holds a fence gets a longer one; an info string keeps only a plain word.
    expect(markdownSanitized('````\n```\n<x>\n````')).toBe('````\n```\n<x>\n````');
    expect(markdownSanitized('```sql onclick="x"\nSELECT 1\n```')).toBe('```sql\nSELECT 1\n```');
    expect(markdownSanitized('```a<b>\nSELECT 1\n```')).toBe('```\nSELECT 1\n```');
  });

  it('writes a code block inside a list or quote as escaped lines, since not every renderer reads a fence there', () => {
    const output = markdownSanitized('- step:\n  ```\n  <script>alert(1)</script>\n  SELECT 1\n  ```');
    expect(output).toBe('- step:\n\n  &#x3C;script>alert(1)&#x3C;/script>\\\n  SELECT 1');
    expect(typesIn(parsed(output))).not.toContain('code');
  });

  it('writes < and & in text as character references, and escapes $ for Jupyter', () => {
    expect(markdownSanitized('flow < 3 && gain > 2 <b>x</b>')).toBe('flow &#x3C; 3 &#x26;&#x26; gain > 2 &#x3C;b>x&#x3C;/b>');
    expect(markdownSanitized('costs $5 and $10')).toBe('costs \\$5 and \\$10');
    // An author's escapes and references show what they showed in the notebook.
    expect(markdownSanitized('\\<c> \\[d] &#60; &amp; \\*e\\*')).toBe('&#x3C;c> \\[d] &#x3C; &#x26; \\*e\\*');
  });

  it('keeps code spans, but writes one that could be markup if read as prose as escaped text', () => {
    expect(markdownSanitized('run `a < b` then `x_y * 2`')).toBe('run `a < b` then `x_y * 2`');
    expect(markdownSanitized('`<img src=x>` and `[x](javascript:y)` and `&lt;`')).toBe('&#x3C;img src=x> and \\[x]\\(javascript:y) and &#x26;lt;');
  });

  it('shows text with too much markup, or too deep, verbatim in a fence rather than hanging or failing', () => {
    // Over the delimiter budget: micromark would take seconds on it.
    const nested = `${'*_'.repeat(6000)}x${'_*'.repeat(6000)}`;
    expect(markdownSanitized(nested)).toBe(markdownFence(nested));
    const brackets = 'a] '.repeat(8000);
    expect(markdownSanitized(brackets)).toBe(markdownFence(brackets));
    // Within the budget but 20,000 quotes deep: the parser runs out of stack.
    const quotes = `${'>'.repeat(20_000)} <script>x</script>`;
    expect(markdownSanitized(quotes)).toBe(markdownFence(quotes));
    expect(typesIn(parsed(markdownSanitized(quotes)))).toEqual(['root', 'code']);
  });

  it('writes emphasis nested past 24 levels as the text it was (the writer slows down and overflows on deep nesting)', () => {
    const deep = `${'*'.repeat(1000)}x${'*'.repeat(1000)}`;
    const output = markdownSanitized(deep);
    // The outer levels stay emphasis; inside them, the rest of the stars are text again.
    expect(toString(parsed(output))).toMatch(/^\*{900,}x\*{900,}$/);
    const depths = (node: Nodes): number => ('children' in node ? 1 + Math.max(0, ...node.children.map(depths)) : 0);
    expect(depths(parsed(output))).toBeLessThanOrEqual(27);
  });

  it('returns nothing for empty text and keeps plain prose as written', () => {
    expect(markdownSanitized('')).toBe('');
    expect(markdownSanitized('SWE steers the most value from krakow.')).toBe('SWE steers the most value from krakow.');
  });
});
