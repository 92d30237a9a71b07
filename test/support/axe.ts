import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { lowContrastSvgTexts } from './contrast';
import { repoRoot } from './fixtures';

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/**
 * Runs axe-core in the page and returns its serious and critical violations, described, with
 * every SVG text below 4.5:1 (axe measures HTML text only; see lowContrastSvgTexts). The
 * page must be opened with `bypassCSP` (the app's policy rightly refuses injected scripts).
 */
export async function seriousViolations(target: Page): Promise<string[]> {
  // Measured at rest: a fade still running (the add-cell bar's opacity as a run adds a cell)
  // would be read at some blend between its states. Endless animations (spinners) are left be.
  await target.evaluate(() => {
    interface RunningAnimation {
      effect: { getComputedTiming(): { iterations?: number } } | null;
      finished: Promise<unknown>;
    }
    const page = (globalThis as unknown as { document: { getAnimations(): RunningAnimation[] } }).document;
    const finite = page.getAnimations().filter((animation) => animation.effect?.getComputedTiming().iterations !== Infinity);
    return Promise.all(finite.map((animation) => animation.finished.catch(() => undefined)));
  });
  if (!(await target.evaluate(() => 'axe' in globalThis))) await target.addScriptTag({ path: join(repoRoot, 'node_modules', 'axe-core', 'axe.min.js') });
  const violations = await target.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const results = await axe.run((globalThis as unknown as { document: unknown }).document, { resultTypes: ['violations'] });
    return results.violations;
  });
  const svgTexts = await lowContrastSvgTexts(target);
  return [
    ...violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.help} — ${violation.nodes.slice(0, 3).map((node) => `${node.target.join(' ')}${node.failureSummary ? ` (${node.failureSummary.replace(/\s+/g, ' ').trim()})` : ''}`).join(', ')}`),
    ...svgTexts,
  ];
}
