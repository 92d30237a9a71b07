/**
 * Numbers in a result grid as people read them: fractions with grouped digits in the reader's
 * locale and a precision that fits the size (616.13, not 616.1300000000001). The full value stays in the
 * cell's title and in every copy or export.
 */
const byFractionDigits = new Map<number, Intl.NumberFormat>();

function formatter(maximumFractionDigits: number): Intl.NumberFormat {
  let format = byFractionDigits.get(maximumFractionDigits);
  if (!format) {
    format = new Intl.NumberFormat(undefined, { maximumFractionDigits });
    byFractionDigits.set(maximumFractionDigits, format);
  }
  return format;
}

export function formatCellNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  // Whole numbers are often ids, codes or years (1458, 1836): shown as they are, never grouped.
  if (Number.isInteger(value)) return String(value);
  const size = Math.abs(value);
  // Tiny values keep six significant digits rather than rounding to 0.
  if (size < 0.001) return value.toPrecision(6);
  const digits = size >= 1000 ? 2 : size >= 1 ? 4 : 6;
  return formatter(digits).format(value);
}
