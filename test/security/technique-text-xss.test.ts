import { describe, expect, it } from 'vitest';
import { inspect, type Findings } from '../unit/reports/markdown-inspection';
import { exportsOf, payloads } from './technique-text-exports';

/**
 * Issue 26, item 8: XSS through every text a technique writes, not only the plain run's fields
 * (markdown-xss.test.ts): the program Pearl plans and its steps and mapping, DeLLMa's factors
 * (names, values and the likelihood lines of its forecast), its exact outcomes, the playbook an
 * AutoPlan run follows, and Plan*RAG's node questions, answers and explanations. Each payload
 * goes into every one of those texts at once, as the techniques log them; the run is exported
 * the four ways a user can (HTML, which is also the PDF's page, the PDF's footer, Markdown and
 * Jupyter) and each export is read as a browser or a Markdown renderer would.
 */

const dangerousScheme = /^(javascript|vbscript|data):/i;
/** Elements that run code, load something, or (inside SVG) can rewrite a link. */
const activeTags = new Set(['script', 'iframe', 'frame', 'object', 'embed', 'img', 'image', 'form', 'input', 'button', 'link', 'meta', 'base', 'style', 'foreignobject', 'animate', 'set', 'use', 'math', 'video', 'audio', 'source', 'template']);
const urlAttributes = new Set(['href', 'xlink:href', 'src', 'action', 'formaction', 'data', 'poster']);

function decodeEntities(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);?/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);?/g, (_, decimal: string) => String.fromCodePoint(Number(decimal)))
    .replace(/&colon;/gi, ':')
    .replace(/&amp;/g, '&');
}

/**
 * Every live thing an HTML document holds, as a browser's tokenizer would find it: active
 * elements, event-handler attributes, script URLs, srcdoc, url() in a style attribute. Text
 * the renderer escaped (`&lt;img …`) is text and yields nothing.
 */
function liveHtml(document: string): string[] {
  const found: string[] = [];
  const withoutComments = document.replace(/<!--[\s\S]*?-->/g, '');
  for (const tag of withoutComments.matchAll(/<([a-zA-Z][\w:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g)) {
    const name = (tag[1] ?? '').toLowerCase();
    if (activeTags.has(name)) found.push(`<${name}>`);
    for (const attribute of (tag[2] ?? '').matchAll(/([^\s"'=<>`/]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?/g)) {
      const attributeName = (attribute[1] ?? '').toLowerCase();
      const value = decodeEntities((attribute[2] ?? '').replace(/^["']|["']$/g, '')).replace(/[\s\p{Cc}]+/gu, '');
      if (attributeName.startsWith('on')) found.push(`<${name} ${attributeName}>`);
      if (attributeName === 'srcdoc') found.push(`<${name} srcdoc>`);
      if (urlAttributes.has(attributeName) && dangerousScheme.test(value)) found.push(`<${name} ${attributeName}=${value.slice(0, 20)}>`);
      if (attributeName === 'style' && /url\(|expression\(/i.test(value)) found.push(`<${name} style=${value.slice(0, 20)}>`);
    }
  }
  return found;
}

describe('exports against payloads in every text a technique writes', () => {
  // What the report itself writes (its <style>, <meta charset>): every export of a hostile run may hold exactly that and no more.
  const own = exportsOf('plain text');
  const ownHtml = liveHtml(own.html).sort();

  it('the reports show every technique text (the payloads land where the suite means them to)', () => {
    const marker = 'MARKER-7f3a';
    const exports = exportsOf(marker);
    const count = (text: string): number => text.split(marker).length - 1;
    // Playbook, node questions, answers, program, factors, exact outcomes: each appears in the HTML and the Markdown.
    expect(count(exports.html)).toBeGreaterThanOrEqual(10);
    expect(count(exports.markdown)).toBeGreaterThanOrEqual(10);
    for (const label of ['pearl-program', 'pearl-step', 'pearl-mapping', 'DeLLMa · forecast', 'DeLLMa · frame', 'Playbook']) expect(exports.html, label).toContain(label);
    expect(count(exports.footer)).toBe(1);
    expect(liveHtml('<p>a</p><img src=x onerror=alert(1)><a href=" java&#x73;cript:x">x</a><svg><animate/></svg>')).toEqual(['<img>', '<img onerror>', '<a href=javascript:x>', '<animate>']);
  });

  it(`no export holds a live element, handler or script link from ${payloads.length} payloads`, () => {
    expect(payloads.length).toBeGreaterThanOrEqual(290);
    const html: string[] = [];
    const markdown: Findings = { liveLinks: [], rawHtml: [], rawDefinitions: [], swallowable: [] };
    let documents = 0;
    for (const payload of payloads) {
      const exports = exportsOf(payload);
      const live = liveHtml(exports.html).sort();
      if (JSON.stringify(live) !== JSON.stringify(ownHtml)) html.push(`${JSON.stringify(payload)} → HTML ${live.filter((finding) => !ownHtml.includes(finding)).join(' ')}`);
      for (const fragment of [exports.footer, ...exports.notebookHtml]) {
        const found = liveHtml(fragment);
        if (found.length > 0) html.push(`${JSON.stringify(payload)} → fragment ${found.join(' ')}`);
      }
      documents += 2 + exports.notebookHtml.length;
      for (const document of [exports.markdown, ...exports.notebookMarkdown]) {
        const findings = inspect(document);
        for (const key of Object.keys(markdown) as (keyof Findings)[]) markdown[key].push(...findings[key].map((finding) => `${JSON.stringify(payload)} → ${finding}`));
        documents += 1;
      }
    }
    console.log(
      `technique-text xss: ${payloads.length} payloads in every Pearl, DeLLMa, playbook and Plan*RAG text, ${documents} export documents (HTML/PDF page, PDF footer, Markdown, Jupyter); ` +
        `live HTML ${html.length}, live javascript/data/vbscript links ${markdown.liveLinks.length}, raw HTML in Markdown ${markdown.rawHtml.length}, reference definitions ${markdown.rawDefinitions.length}, autolink-swallowable < ${markdown.swallowable.length}`,
    );
    expect(html.slice(0, 5)).toEqual([]);
    expect(markdown.liveLinks.slice(0, 5)).toEqual([]);
    expect(markdown.rawHtml.slice(0, 5)).toEqual([]);
    expect(markdown.rawDefinitions.slice(0, 5)).toEqual([]);
    expect(markdown.swallowable.slice(0, 5)).toEqual([]);
  }, 300_000);
});
