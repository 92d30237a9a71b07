import MarkdownIt from 'markdown-it';
import { Marked } from 'marked';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import type Token from 'markdown-it/lib/token.mjs';
import { describe, expect, it } from 'vitest';
import { signerFromPem } from '../../../src-main/audit/signing';
import type { RunEvent } from '../../../src-main/contract/run';
import { bundleFromRun } from '../../../src-main/reports/prepare-bundle';
import { renderIpynb } from '../../../src-main/reports/render-ipynb';
import { renderMarkdownReport } from '../../../src-main/reports/render-markdown';
import { buildReport } from '../../../src-main/reports/report-model';
import { analystKeyPem, sampleEvents, sampleMaterials } from './bundle-fixture';

/**
 * Link and markup payloads, each placed in every field of a run that a Markdown report or a
 * Jupyter Markdown cell shows (question, rules, thoughts, plans, queries, result rows and
 * columns, errors, rationale, notes, sign-off), rendered by a real Markdown renderer and read
 * raw. None may yield a javascript:, data: or vbscript: link or image, or any raw HTML.
 */
const vectors = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '<svg onload=alert(1)>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<a href="javascript:alert(1)">x</a>',
  '<!-- c --><img src=x onerror=alert(1)>',
  '<![CDATA[x]]><b>x</b>',
  '[click](javascript:alert(1))',
  '[click](JaVaScRiPt:alert(1))',
  '[click]( \tjavascript:alert(1) )',
  '[click](<javascript:alert(1)>)',
  '[click](&#106;avascript:alert(1))',
  '[click](java&#x73;cript:alert(1))',
  '[click](javascript&colon;alert(1))',
  '[click](javascript:alert(1) "title")',
  '[click](vbscript:msgbox(1))',
  '[click](data:text/html,<script>alert(1)</script>)',
  '[click][a]\n\n[a]: javascript:alert(1)',
  '[a]: javascript:alert(1)\n\n[a]',
  '[a]:\n  <javascript:alert(1)>\n\n[x][a]',
  '[click]\n\n[click]: vbscript:msgbox(1)',
  '![x](javascript:alert(1))',
  '![x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '![x][i]\n\n[i]: data:image/svg+xml,<svg onload=alert(1)>',
  '<javascript:alert(1)>',
  '<vbscript:msgbox(1)>',
  '<data:text/html,x>',
  'http://x.example/<img src=x onerror=alert(1)>',
  'www.x.example/<img src=x onerror=alert(1)>',
  'http://x.example/[x](javascript:alert(1))',
  '\\[click\\](javascript:alert(1))',
  '\\<img src=x onerror=alert(1)>',
  '`a` [x](javascript:alert(1)) `b`',
  '``\n<img src=x onerror=alert(1)>',
  '&lt;img src=x onerror=alert(1)&gt;',
  '&#60;img src=x onerror=alert(1)&#62;',
  '| a | [x](javascript:alert(1)) |',
  '```\n<script>alert(1)</script>\n```',
  '[^1]\n\n[^1]: javascript:alert(1)',
  '[x]\n: javascript:alert(1)',
  // Code spans and fences keep their text; none of these may let markup out of them.
  '`<img src=x onerror=alert(1)>`',
  '`[x](javascript:alert(1))`',
  '`a\\\\](javascript:alert(1))` [b',
  '` a\n` <img src=x onerror=alert(1)> `',
  '  ```\n```\n<img src=x onerror=alert(1)>\n```',
  '- ```\n<script>alert(1)</script>\n```',
  '~~~\n<script>alert(1)</script>',
];
/** How a vector reaches the text: alone, after a URL, on a new line, after a lone CR, in a list, after a backslash. */
const wrappers: ((vector: string) => string)[] = [
  (vector) => vector,
  (vector) => `see http://e.example/${vector}`,
  (vector) => `intro\n${vector}`,
  (vector) => `intro\r${vector}\rend`,
  (vector) => `- ${vector.replace(/\n/g, '\n  ')}`,
  (vector) => `\\${vector}`,
];
const payloads = wrappers.flatMap((wrap) => vectors.map(wrap));

/** The sample run with `payload` in every field the reports show as text. */
function hostileEvents(payload: string): RunEvent[] {
  return sampleEvents().map((event): RunEvent => {
    switch (event.type) {
      case 'run-start':
        return { ...event, question: payload, rules: payload, model: { ...event.model, name: payload }, connection: { ...event.connection, description: `sqlite:${payload}` } };
      case 'thought':
      case 'observation':
        return { ...event, text: payload };
      case 'plan':
        return { ...event, steps: [payload, 'b'] };
      case 'replan':
        return { ...event, steps: ['a', payload], reason: payload };
      case 'analyst-review':
        return { ...event, note: payload };
      case 'query-start':
        return { ...event, query: payload };
      case 'query-end':
        return event.result
          ? { ...event, result: { ...event.result, columns: [{ name: payload, type: payload }, ...event.result.columns.slice(1)], rows: event.result.rows.map((row) => [payload, ...row.slice(1)]) } }
          : { ...event, error: event.error && { ...event.error, message: payload } };
      case 'decision':
        return { ...event, decision: payload, rationale: payload };
      default:
        return event;
    }
  });
}

/** The report's own section anchors: the only HTML it writes. */
const anchor = /^<a id="[a-z-]+">(<\/a>)?\n?$/;
const dangerous = /^(javascript|vbscript|data):/i;
/** A URL as a browser reads its scheme: without the whitespace and control characters it ignores. */
function scheme(url: string): string {
  let decoded = url;
  try {
    decoded = decodeURIComponent(url.replace(/%(?![0-9a-f]{2})/gi, '%25'));
  } catch {
    // Not valid percent-encoded UTF-8: read it as written.
  }
  return decoded.replace(/[\s\p{Cc}]+/gu, '');
}

/** A renderer with the common options but no link filter of its own, so every link the Markdown forms is seen. */
const permissive = new MarkdownIt({ html: true, linkify: true });
permissive.validateLink = () => true;
/** As commonly configured: raw HTML off, bare URLs linked. */
const common = new MarkdownIt({ html: false, linkify: true });

interface Findings {
  liveLinks: string[];
  rawHtml: string[];
  rawDefinitions: string[];
  swallowable: string[];
}

function inspect(markdown: string): Findings {
  const findings: Findings = { liveLinks: [], rawHtml: [], rawDefinitions: [], swallowable: [] };
  const env: { references?: Record<string, { href: string }> } = {};
  const walk = (tokens: Token[]): void => {
    for (const token of tokens) {
      if (token.type === 'html_block' || token.type === 'html_inline') {
        if (!anchor.test(token.content) && token.content !== '</a>') findings.rawHtml.push(token.content);
      }
      for (const attribute of ['href', 'src']) {
        const url = token.attrGet(attribute);
        if (url !== null && dangerous.test(scheme(url))) findings.liveLinks.push(`${token.type} ${url}`);
      }
      if (token.children) walk(token.children);
    }
  };
  walk(permissive.parse(markdown, env));
  for (const reference of Object.values(env.references ?? {})) if (dangerous.test(scheme(reference.href))) findings.liveLinks.push(`reference ${reference.href}`);
  const rendered = common.render(markdown);
  for (const match of rendered.matchAll(/<(?!\/?(p|a|h[1-6]|ul|ol|li|strong|em|code|pre|table|thead|tbody|tr|th|td|blockquote|hr|br|s)[\s>])[^>]*>?/g)) findings.rawHtml.push(match[0]);
  for (const match of rendered.matchAll(/<a href="([^"]*)"/g)) if (dangerous.test(scheme(match[1] ?? ''))) findings.liveLinks.push(`rendered ${match[1]}`);

  // The two other renderers issue 17 named (marked; micromark, under remark and MDX), with GFM
  // and with raw HTML and every protocol let through, so that whatever the Markdown forms shows.
  for (const [renderer, html] of [
    ['marked', gfmMarked.parse(markdown, { async: false })],
    ['micromark', micromark(markdown, { allowDangerousHtml: true, allowDangerousProtocol: true, extensions: [gfm()], htmlExtensions: [gfmHtml()] })],
  ] as const) {
    for (const match of html.matchAll(/<(?!\/?(p|a|h[1-6]|ul|ol|li|strong|em|del|code|pre|table|thead|tbody|tr|th|td|blockquote|hr|br|s|input|section|sup)[\s>/])[^>]*>?/g)) findings.rawHtml.push(`${renderer} ${match[0]}`);
    for (const match of html.matchAll(/<(?:a|img)\b[^>]*?\b(?:href|src)="([^"]*)"/g)) if (dangerous.test(scheme(decodeEntities(match[1] ?? '')))) findings.liveLinks.push(`${renderer} ${match[1]}`);
  }

  // Outside fenced code, read the Markdown itself as other renderers (marked, micromark) would.
  const prose = withoutFences(markdown);
  for (const match of prose.matchAll(/^ {0,3}\[(?:[^\]\\\n]|\\.)*\]:/gm)) findings.rawDefinitions.push(match[0]);
  for (const match of prose.matchAll(/(?<=(?:^|[^\\])(?:\\\\)*)\]\(\s*<?\s*(javascript|vbscript|data):/gi)) findings.liveLinks.push(`raw ${match[0]}`);
  // A GFM autolink literal runs to the next space or `<`, eating a backslash before a `<`.
  for (const match of prose.matchAll(/(https?:\/\/|www\.)[^\s<]*</gi)) findings.swallowable.push(match[0]);
  for (const match of prose.replace(/<a id="[a-z-]+"><\/a>/g, '').matchAll(/<[^\n]{0,20}/g)) findings.rawHtml.push(`raw ${match[0]}`);
  return findings;
}

const gfmMarked = new Marked({ gfm: true });

/** An attribute value as the browser reads it: character references decoded. */
function decodeEntities(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);?/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);?/g, (_, decimal: string) => String.fromCodePoint(Number(decimal)))
    .replace(/&colon;/gi, ':')
    .replace(/&tab;/gi, '\t')
    .replace(/&newline;/gi, '\n')
    .replace(/&amp;/g, '&');
}

/** The Markdown with the fenced code blocks (which no renderer reads as markup) blanked out. */
function withoutFences(markdown: string): string {
  let fence: string | null = null;
  return markdown
    .split('\n')
    .map((line) => {
      if (fence === null) {
        const opening = /^(`{3,})[^`]*$/.exec(line);
        if (opening) fence = opening[1] as string;
        return opening ? '' : line;
      }
      if (new RegExp(`^${fence}\`*\\s*$`).test(line)) fence = null;
      return '';
    })
    .join('\n');
}

describe('Markdown and Jupyter exports against link and markup payloads', () => {
  it(`form no javascript:, data: or vbscript: link and no raw HTML from ${payloads.length} payloads in every field`, () => {
    expect(payloads.length).toBeGreaterThanOrEqual(200);
    const totals: Findings = { liveLinks: [], rawHtml: [], rawDefinitions: [], swallowable: [] };
    let documents = 0;
    for (const payload of payloads) {
      const signerName = payload.replace(/^\s+/, 'x').trim();
      const bundle = bundleFromRun(sampleMaterials(hostileEvents(payload)), {
        at: '2026-01-02T10:00:00.000Z',
        generator: 'test',
        signOff: { name: signerName, comment: payload },
        signer: signerFromPem(signerName, analystKeyPem),
      });
      const report = buildReport(bundle);
      const notebook = JSON.parse(renderIpynb(bundle, report)) as { cells: { cell_type: string; source: string[] }[] };
      const documentsOfPayload = [renderMarkdownReport(report), ...notebook.cells.filter((cell) => cell.cell_type === 'markdown').map((cell) => cell.source.join(''))];
      for (const markdown of documentsOfPayload) {
        const findings = inspect(markdown);
        for (const key of Object.keys(totals) as (keyof Findings)[]) totals[key].push(...findings[key].map((finding) => `${JSON.stringify(payload)} → ${finding}`));
        documents++;
      }
    }
    console.log(
      `markdown payloads: ${payloads.length} payloads in ${documents} documents; live javascript/data/vbscript links ${totals.liveLinks.length}, raw HTML ${totals.rawHtml.length}, reference definitions ${totals.rawDefinitions.length}, autolink-swallowable < ${totals.swallowable.length}`,
    );
    expect(totals.liveLinks.slice(0, 5)).toEqual([]);
    expect(totals.rawHtml.slice(0, 5)).toEqual([]);
    expect(totals.rawDefinitions.slice(0, 5)).toEqual([]);
    expect(totals.swallowable.slice(0, 5)).toEqual([]);
  }, 120_000);

  it('still sees links the checks are meant to catch (the inspection is not blind)', () => {
    const caught = inspect('[a]: javascript:alert(1)\n\n[x][a] <img src=x> http://e.example/\\<b> ![i](data:x)');
    expect(caught.liveLinks.length).toBeGreaterThanOrEqual(2);
    expect(caught.liveLinks.some((finding) => finding.startsWith('marked '))).toBe(true);
    expect(caught.liveLinks.some((finding) => finding.startsWith('micromark '))).toBe(true);
    expect(caught.rawHtml.some((finding) => finding.startsWith('marked <img'))).toBe(true);
    expect(caught.rawHtml.some((finding) => finding.startsWith('micromark <img'))).toBe(true);
    expect(caught.rawHtml.length).toBeGreaterThan(0);
    expect(caught.rawDefinitions).toEqual(['[a]:']);
    expect(caught.swallowable).toEqual(['http://e.example/\\<']);
  });
});
