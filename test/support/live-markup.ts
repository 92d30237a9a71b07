import type { Page } from 'playwright-core';

/** What would show that a payload became live: the marker, scripts and images it brings, inline handlers, script links. */
export async function liveFindings(page: Page): Promise<{ pwned: unknown; elements: string[]; handlers: string[]; links: string[] }> {
  const pwned = await page.evaluate(() => (globalThis as unknown as { __pwned?: unknown }).__pwned ?? null);
  const found = await page.locator('*').evaluateAll((elements) => ({
    elements: elements
      .filter((element) => ['SCRIPT', 'IMG', 'IFRAME', 'OBJECT', 'EMBED', 'FOREIGNOBJECT', 'ANIMATE', 'SET'].includes(element.tagName.toUpperCase()))
      .filter((element) => element.outerHTML.includes('pwned') || element.getAttribute('src') === 'x')
      .map((element) => element.outerHTML.slice(0, 80)),
    handlers: elements.flatMap((element) => element.getAttributeNames().filter((name: string) => /^on/i.test(name)).map((name: string) => `${element.tagName} ${name}`)),
    links: elements.filter((element) => element.tagName.toUpperCase() === 'A').map((link) => link.getAttribute('href') ?? '').filter((href) => /^\s*(javascript|data|vbscript):/i.test(href)),
  }));
  return { pwned, ...found };
}
