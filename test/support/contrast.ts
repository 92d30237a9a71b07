import type { Locator, Page } from 'playwright-core';

export interface ShownColours {
  /** The text colour as computed, `rgb(…)`. */
  color: string;
  /** The first opaque background behind the element (its own or an ancestor's), `rgb(…)`. */
  background: string;
  /** The WCAG 2 contrast ratio of the two (1 to 21). */
  ratio: number;
}

/**
 * The colours a user sees for an element's text: its computed colour and the background it is
 * drawn on, with their WCAG contrast ratio (4.5 is the AA minimum for body text). Evaluated in
 * the page, so the theme's CSS variables and overrides are what count.
 */
export async function shownColours(element: Locator): Promise<ShownColours> {
  const shown = await element.evaluate((target) => {
    // Runs in the page; the test code is type-checked without the DOM library.
    const style = (node: unknown) => (globalThis as unknown as { getComputedStyle(node: unknown): { color: string; backgroundColor: string } }).getComputedStyle(node);
    const parentOf = (node: unknown): unknown => (node as { parentElement: unknown }).parentElement;
    const opaque = (css: string): boolean => {
      const parts = css.match(/[\d.]+/g) ?? [];
      return parts.length === 3 || (parts.length === 4 && Number(parts[3]) === 1);
    };
    let background = 'rgb(255, 255, 255)';
    for (let node: unknown = target; node; node = parentOf(node)) {
      const colour = style(node).backgroundColor;
      if (opaque(colour)) {
        background = colour;
        break;
      }
    }
    return { color: style(target).color, background };
  });
  const [light, dark] = [relativeLuminance(shown.color), relativeLuminance(shown.background)].sort((a, b) => b - a) as [number, number];
  return { ...shown, ratio: (light + 0.05) / (dark + 0.05) };
}

/** The WCAG 2 contrast ratio of two `rgb(…)` colours (1 to 21; 3 is the minimum for graphics, 4.5 for body text). */
export function contrastRatio(first: string, second: string): number {
  const [light, dark] = [relativeLuminance(first), relativeLuminance(second)].sort((a, b) => b - a) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** Whether an `rgb(…)` colour is a dark theme's kind of background (relative luminance under 0.2; white is 1). */
export function isDarkColour(css: string): boolean {
  return relativeLuminance(css) < 0.2;
}

/** WCAG 2's relative luminance of an `rgb(…)`/`rgba(…)` colour. */
function relativeLuminance(css: string): number {
  const [r = 0, g = 0, b = 0] = (css.match(/[\d.]+/g) ?? []).slice(0, 3).map((part) => {
    const channel = Number(part) / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/**
 * Every visible SVG text in the page whose fill has less than `minimum` contrast with the
 * background it is drawn on, described. axe-core measures HTML text only, so chart ticks, labels
 * and legends drawn as SVG <text> go through this (seriousViolations runs it with axe). The
 * fill is the computed `fill` (CSS beats the presentation attribute, as the browser draws it),
 * scaled by its opacity over the background; the background is the first opaque one among the
 * SVG's HTML ancestors.
 */
export async function lowContrastSvgTexts(page: Page, minimum = 4.5): Promise<string[]> {
  const measured = await page.evaluate(() => {
    // Runs in the page; the test code is type-checked without the DOM library.
    type Node = { parentElement: Node | null; textContent: string | null; getBoundingClientRect(): { width: number; height: number }; childNodes: ArrayLike<{ nodeType: number; textContent: string | null }> };
    const doc = (globalThis as unknown as { document: { querySelectorAll(selector: string): ArrayLike<Node> } }).document;
    const style = (node: Node) => (globalThis as unknown as { getComputedStyle(node: Node): { fill: string; fillOpacity: string; opacity: string; backgroundColor: string; visibility: string; display: string } }).getComputedStyle(node);
    const opaque = (css: string): boolean => {
      const parts = css.match(/[\d.]+/g) ?? [];
      return parts.length === 3 || (parts.length === 4 && Number(parts[3]) === 1);
    };
    const found: { text: string; fill: string; opacity: number; background: string }[] = [];
    for (const element of Array.from(doc.querySelectorAll('svg text, svg tspan'))) {
      const own = Array.from(element.childNodes).filter((child) => child.nodeType === 3).map((child) => child.textContent ?? '').join('').trim();
      const box = element.getBoundingClientRect();
      const shown = style(element);
      if (!own || box.width === 0 || box.height === 0 || shown.visibility === 'hidden' || shown.display === 'none') continue;
      if (!shown.fill.startsWith('rgb')) continue;
      let opacity = Number(shown.fillOpacity || 1);
      let background = 'rgb(255, 255, 255)';
      for (let node: Node | null = element; node; node = node.parentElement) {
        opacity *= Number(style(node).opacity || 1);
        const colour = style(node).backgroundColor;
        if (opaque(colour)) {
          background = colour;
          break;
        }
      }
      found.push({ text: own.slice(0, 40), fill: shown.fill, opacity, background });
    }
    return found;
  });
  return measured.flatMap(({ text, fill, opacity, background }) => {
    const ratio = contrastRatio(blend(fill, background, opacity), background);
    return ratio < minimum ? [`svg-text-contrast (serious): “${text}” ${fill} on ${background} is ${ratio.toFixed(2)}:1, below ${minimum}:1`] : [];
  });
}

/** `colour` drawn at `opacity` (and its own alpha) over an opaque `background`, as `rgb(…)`. */
function blend(colour: string, background: string, opacity: number): string {
  const [r = 0, g = 0, b = 0, a = 1] = (colour.match(/[\d.]+/g) ?? []).map(Number);
  const [br = 255, bg = 255, bb = 255] = (background.match(/[\d.]+/g) ?? []).map(Number);
  const alpha = Math.max(0, Math.min(1, a * opacity));
  const mix = (front: number, back: number): number => Math.round(front * alpha + back * (1 - alpha));
  return `rgb(${mix(r, br)}, ${mix(g, bg)}, ${mix(b, bb)})`;
}
