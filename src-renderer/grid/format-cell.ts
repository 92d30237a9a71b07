/**
 * Numbers in a result grid as people read them: digits grouped in the reader's locale, whole
 * numbers and fractions alike (1,234,567 beside 1,234,567.89), and a precision that fits the size
 * (616.13, not 616.1300000000001). The full value stays in the cell's title and in every copy or
 * export.
 */
const byFractionDigits = new Map<string, Intl.NumberFormat>();

function formatter(maximumFractionDigits: number, minimumFractionDigits = 0): Intl.NumberFormat {
  const key = `${minimumFractionDigits}-${maximumFractionDigits}`;
  let format = byFractionDigits.get(key);
  if (!format) {
    format = new Intl.NumberFormat(undefined, { minimumFractionDigits, maximumFractionDigits });
    byFractionDigits.set(key, format);
  }
  return format;
}

/** Past this size a number's digits are no longer read one by one (JavaScript itself writes 1e+21). */
const exponentFrom = 1e21;

/** Six significant digits without the zeros toPrecision pads with: 1e+308, 1.5e-300, 0.000001234. */
function significant(value: number): string {
  const [mantissa = '', exponent] = value.toPrecision(6).split('e');
  const trimmed = mantissa.includes('.') ? mantissa.replace(/\.?0+$/, '') : mantissa;
  return exponent === undefined ? trimmed : `${trimmed}e${exponent}`;
}

export function formatCellNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const size = Math.abs(value);
  // Huge values (1e308 would be 309 grouped digits) and tiny ones (rather than rounding to 0).
  if (size >= exponentFrom || (size < 0.001 && size > 0)) return significant(value);
  if (Number.isInteger(value)) return formatter(0).format(value);
  return formatter(fractionCap(size)).format(value);
}

/** At most this many fraction digits for a number of this size: 2 from 1,000 up, 4 from 1, 6 below. */
function fractionCap(size: number): number {
  return size >= 1000 ? 2 : size >= 1 ? 4 : 6;
}

/**
 * The fraction digits `formatCellNumber` shows for a value (616.1300000000001 → 2, 42 → 0), or
 * null where it writes an exponent, a tiny number's significant digits or a name: those keep
 * their own form and take no part in aligning a column.
 */
export function shownFractionDigits(value: number): number | null {
  if (!Number.isFinite(value)) return null;
  const size = Math.abs(value);
  if (size >= exponentFrom || (size < 0.001 && size > 0)) return null;
  if (Number.isInteger(value)) return 0;
  const fixed = value.toFixed(fractionCap(size)).replace(/0+$/, '');
  const point = fixed.indexOf('.');
  return point < 0 ? 0 : fixed.length - point - 1;
}

/** The most fraction digits any of a column's values shows: every value of the column is written with that many. */
export function columnFractionDigits(values: Iterable<unknown>): number {
  let digits = 0;
  for (const value of values) {
    if (typeof value !== 'number') continue;
    digits = Math.max(digits, shownFractionDigits(value) ?? 0);
  }
  return digits;
}

/**
 * The last word of a column name that says its whole numbers are labels, not quantities: an id
 * (building_id 1458), a code, a year (2024), a postcode, or a candidate (a simulation's or
 * what-if's option, such as building 1458). Grouping those (1,458; 2,024) would make
 * them harder to read and to match against other tables, so they keep their plain digits. The
 * name is the only sound clue: by value a year column looks like any count between 1000 and 2999.
 */
const labelWords = new Set(['candidate', 'id', 'ids', 'uuid', 'key', 'code', 'year', 'yr', 'zip', 'zipcode', 'postcode', 'sku', 'isbn', 'ean', 'fips', 'no', 'num', 'number', 'phone', 'date']);

export function isLabelColumn(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const last = words[words.length - 1];
  return last !== undefined && labelWords.has(last);
}

/**
 * How a column's numbers are shown: whole numbers of a label column as plain digits; everything
 * else by `formatCellNumber`, with one number of fraction digits for the whole column (the most
 * any of `values` shows) so that, right-aligned in tabular figures, the decimal points line up
 * (12.50 above 616.13, not 12.5). Values in exponent or significant-digit form keep their own.
 * The full value stays in the cell's title and in copies and exports.
 */
export function columnNumberFormat(columnName: string, values: Iterable<unknown> = []): (value: number) => string {
  const label = isLabelColumn(columnName);
  const digits = columnFractionDigits(values);
  return (value) => {
    if (label && Number.isInteger(value)) return String(value);
    if (digits === 0 || shownFractionDigits(value) === null) return formatCellNumber(value);
    return formatter(digits, digits).format(value);
  };
}
