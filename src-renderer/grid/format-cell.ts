/**
 * Numbers in a result grid as people read them: digits grouped in the reader's locale, whole
 * numbers and fractions alike (1,234,567 beside 1,234,567.89), and a precision that fits the size
 * (616.13, not 616.1300000000001). The full value stays in the cell's title and in every copy or
 * export.
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
  const digits = size >= 1000 ? 2 : size >= 1 ? 4 : 6;
  return formatter(digits).format(value);
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

/** How a column's numbers are shown: whole numbers of a label column as plain digits, everything else by `formatCellNumber`. */
export function columnNumberFormat(columnName: string): (value: number) => string {
  if (!isLabelColumn(columnName)) return formatCellNumber;
  return (value) => (Number.isInteger(value) ? String(value) : formatCellNumber(value));
}
