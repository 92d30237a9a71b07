/**
 * A result column's starting width, from the widths its header and values really take in the
 * grid's fonts (a canvas measures them), not from a character count: "WWW" and "iii" have the
 * same length and very different widths, and a bold header is wider than its letters suggest,
 * so a count cut short values and headers, most visibly in an empty or small grid where the
 * header alone decides the width.
 */

/** The grid's fonts (styles.css: `.grid-scroller` 12.5px, `.grid-heading` 600, `.grid .number` 12px mono). */
interface GridFonts {
  text: string;
  heading: string;
  number: string;
}

/** Left and right padding of a grid cell (`.grid-cell`: 10px each). */
const cellPadding = 20;
/** Room for the sort mark (▲/▼) and the resize handle after a header's text. */
const headingExtra = 18;
const minWidth = 72;
const maxWidth = 360;

let context: CanvasRenderingContext2D | null | undefined;

function fontsOf(root: Element): GridFonts {
  const style = getComputedStyle(root);
  const family = style.fontFamily || 'sans-serif';
  const mono = style.getPropertyValue('--mono').trim() || 'monospace';
  return { text: `12.5px ${family}`, heading: `600 12.5px ${family}`, number: `12px ${mono}` };
}

function measure(text: string, font: string): number {
  context ??= document.createElement('canvas').getContext('2d');
  // Without a canvas (none in this environment) fall back to a generous character count.
  if (!context) return text.length * 8.5;
  context.font = font;
  return context.measureText(text).width;
}

/** What one cell shows: its text, and whether it is a number (drawn in the number font). */
export interface ShownCell {
  text: string;
  number: boolean;
}

/**
 * The width for a column whose header reads `header` and whose cells show `cells`: the widest
 * of them plus the cell's padding, whole pixels rounded up, between 72 and 360 px (a longer
 * value ends in an ellipsis and shows in full on hover).
 */
export function columnWidth(header: string, cells: Iterable<ShownCell>): number {
  const fonts = fontsOf(document.documentElement);
  let widest = measure(header, fonts.heading) + headingExtra;
  for (const cell of cells) widest = Math.max(widest, measure(cell.text, cell.number ? fonts.number : fonts.text));
  return Math.min(maxWidth, Math.max(minWidth, Math.ceil(widest + cellPadding + 2)));
}
