import MarkdownIt from 'markdown-it';
import { Marked } from 'marked';
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import type Token from 'markdown-it/lib/token.mjs';

/**
 * The link and markup payloads of the export XSS suites and the inspection that reads a
 * Markdown document as several real renderers would (markdown-xss.test.ts,
 * test/security/technique-text-xss.test.ts).
 */

/** Link and markup payloads: raw HTML, script links of every spelling, Markdown constructs that could let markup out. */
export const vectors = [
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
export const wrappers: ((vector: string) => string)[] = [
  (vector) => vector,
  (vector) => `see http://e.example/${vector}`,
  (vector) => `intro\n${vector}`,
  (vector) => `intro\r${vector}\rend`,
  (vector) => `- ${vector.replace(/\n/g, '\n  ')}`,
  (vector) => `\\${vector}`,
];
export const payloads = wrappers.flatMap((wrap) => vectors.map(wrap));

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

export interface Findings {
  liveLinks: string[];
  rawHtml: string[];
  rawDefinitions: string[];
  swallowable: string[];
}

export function inspect(markdown: string): Findings {
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
