import { readCsv, type CsvProblem } from './csv-lines';

/**
 * USDA NASS California statistics as published (`Commodity, Yield, Price per Unit`, units in
 * the values: "18,000 LB / ACRE", "15.59 $ / BOX, ON TREE EQUIV"), parsed into numbers with
 * their units. A row that does not parse is kept in `malformed` with its file and line, never
 * dropped silently.
 */

/** Units of quantity and how many pounds each is, where it is a weight. */
const weightInPounds: Record<string, number> = { LB: 1, CWT: 100, TON: 2000 };
const singular: Record<string, string> = { LBS: 'LB', TONS: 'TON', BOXES: 'BOX', BUSHELS: 'BU', BU: 'BU', CWT: 'CWT', LB: 'LB', TON: 'TON', BOX: 'BOX' };

export interface Yield {
  value: number;
  /** Singular unit of the harvest, e.g. `TON`, `BOX`. */
  unit: string;
  text: string;
}

export interface Price {
  value: number;
  /** Unit the price is per, e.g. `TON`, `BOX`. */
  unit: string;
  /** Anything after the unit, e.g. `ON TREE EQUIV`. */
  qualifier: string | null;
  text: string;
}

export interface CommodityStats {
  commodity: string;
  yield: Yield;
  price: Price;
  line: number;
}

export interface UsdaStats {
  file: string;
  rows: CommodityStats[];
  malformed: CsvProblem[];
}

function parseNumber(text: string): number | null {
  const cleaned = text.trim().replace(/,/g, '');
  if (!/^\d+(\.\d+)?$/.test(cleaned)) return null;
  return Number(cleaned);
}

function unitOf(text: string): string | null {
  return singular[text.trim().toUpperCase()] ?? null;
}

/** "6.92 TONS / ACRE" → 6.92 TON per acre. */
export function parseYield(text: string): Yield | string {
  const match = /^\s*([\d,.]+)\s+([A-Za-z]+)\s*\/\s*ACRE\s*$/i.exec(text);
  if (!match) return `yield "${text}" is not "<number> <unit> / ACRE"`;
  const value = parseNumber(match[1] ?? '');
  const unit = unitOf(match[2] ?? '');
  if (value === null) return `yield "${text}" has no readable number`;
  if (unit === null) return `yield "${text}" has an unknown unit "${match[2] ?? ''}"`;
  return { value, unit, text };
}

/** "15.59 $ / BOX, ON TREE EQUIV" → $15.59 per BOX, qualifier "ON TREE EQUIV". */
export function parsePrice(text: string): Price | string {
  const match = /^\s*([\d,.]+)\s*\$\s*\/\s*([A-Za-z]+)\s*(?:,\s*(.+?))?\s*$/.exec(text);
  if (!match) return `price "${text}" is not "<number> $ / <unit>"`;
  const value = parseNumber(match[1] ?? '');
  const unit = unitOf(match[2] ?? '');
  if (value === null) return `price "${text}" has no readable number`;
  if (unit === null) return `price "${text}" has an unknown unit "${match[2] ?? ''}"`;
  return { value, unit, qualifier: match[3] ?? null, text };
}

export function parseUsdaStats(file: string, text: string): UsdaStats {
  const { header, rows, problems } = readCsv(file, text);
  const malformed = [...problems];
  const expected = ['Commodity', 'Yield', 'Price per Unit'];
  if (header.join('|') !== expected.join('|')) {
    malformed.push({ file, line: 1, message: `header is "${header.join(',')}", expected "${expected.join(',')}"`, raw: header.join(',') });
    return { file, rows: [], malformed };
  }
  const parsed: CommodityStats[] = [];
  for (const row of rows) {
    const fail = (message: string): void => {
      malformed.push({ file, line: row.line, message, raw: row.raw });
    };
    if (row.fields.length !== 3) {
      fail(`expected 3 fields, found ${row.fields.length}`);
      continue;
    }
    const [commodity, yieldText, priceText] = row.fields as [string, string, string];
    if (commodity.trim() === '') {
      fail('the commodity is empty');
      continue;
    }
    const yieldValue = parseYield(yieldText);
    const price = parsePrice(priceText);
    if (typeof yieldValue === 'string') fail(yieldValue);
    else if (typeof price === 'string') fail(price);
    else parsed.push({ commodity: commodity.trim().toLowerCase(), yield: yieldValue, price, line: row.line });
  }
  malformed.sort((left, right) => left.line - right.line);
  return { file, rows: parsed, malformed };
}

/**
 * Revenue per acre in dollars: yield × price, with weights converted to pounds on both
 * sides (TON = 2000 LB, CWT = 100 LB); other units (BOX, BU) must match exactly.
 */
export function revenuePerAcre(stats: CommodityStats): number | string {
  const { yield: harvest, price } = stats;
  if (harvest.unit === price.unit) return harvest.value * price.value;
  const yieldPounds = weightInPounds[harvest.unit];
  const pricePounds = weightInPounds[price.unit];
  if (yieldPounds === undefined || pricePounds === undefined) return `${stats.commodity}: yield in ${harvest.unit} and price per ${price.unit} cannot be converted`;
  return ((harvest.value * yieldPounds) / pricePounds) * price.value;
}
