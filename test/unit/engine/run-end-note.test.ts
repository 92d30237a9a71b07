import { describe, expect, it } from 'vitest';
import { chainEntry } from '../../../src-main/audit/hash-chain';
import { MemoryCellSink } from '../../../src-main/engine/memory-cell-sink';
import { createRunCellWriter } from '../../../src-main/engine/run-cells';
import { readWhatIfMapping } from '../../../src-main/engine/techniques/dellma/whatif-mapping';

// The renderer's own Markdown library, loaded by name so the node project's types stay free of React's DOM types.
type Render = { createElement(type: unknown, props: unknown, child: string): unknown; renderToStaticMarkup(element: unknown): string; ReactMarkdown: unknown };
const load = async (name: string): Promise<Record<string, unknown>> => (await import(name)) as Record<string, unknown>;
const react = await load('react');
const render: Render = {
  createElement: react['createElement'] as Render['createElement'],
  renderToStaticMarkup: (await load('react-dom/server'))['renderToStaticMarkup'] as Render['renderToStaticMarkup'],
  ReactMarkdown: (await load('react-markdown'))['default'],
};

/** A note as the notebook shows it: Markdown with any HTML skipped (src-renderer/cells/Markdown.tsx). */
function shownText(source: string): string {
  const html = render.renderToStaticMarkup(render.createElement(render.ReactMarkdown, { skipHtml: true }, source));
  return html.replace(/<[^>]+>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
}

function endNote(message: string): string {
  const sink = new MemoryCellSink('notebook-1');
  const write = createRunCellWriter(sink, { runId: 'run-1', connectionId: null, afterCellId: null });
  write(chainEntry(null, 'run-1', '2026-01-01T00:00:00.000Z', { type: 'run-end', status: 'failed', message, steps: 0, totalTokens: 0 }));
  const note = sink.cells.at(-1);
  if (note?.kind !== 'note') throw new Error('the run end wrote no note');
  return note.source;
}

describe('the note a failed run ends with', () => {
  it('shows a message with <placeholders> whole, not as skipped HTML', () => {
    const message = 'line 4: "What-if demand low" is none of "<unknown> = <value>", "option"';
    expect(shownText(endNote(message))).toBe(`Run ended: failed. ${message}`);
  });

  it('shows the what-if reader’s own refusal of a malformed line whole', () => {
    const read = readWhatIfMapping('Which fruit?\nWhat-if demand low: UPDATE t SET x = 1\nWhat-if objective: SELECT 1', { unknowns: ['demand'], options: ['apple', 'pear'] });
    if (read.ok) throw new Error('a malformed what-if line was accepted');
    const message = read.problems.join('; ');
    expect(message).toContain('<unknown> = <value>');
    expect(shownText(endNote(message))).toContain('<unknown> = <value>');
  });

  it('keeps comparisons and plain text as they are', () => {
    expect(shownText(endNote('step limit reached: 20 < 21 and 3 > 2'))).toBe('Run ended: failed. step limit reached: 20 < 21 and 3 > 2');
  });
});
