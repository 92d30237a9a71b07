import { join } from 'node:path';
import { WorkbenchError, fileErrorReason } from '../contract/errors';
import type { FactorSpec } from '../engine/techniques/dellma/belief';
import { readCsv, type CsvProblem } from './csv-lines';
import { problemsFrom, type DellmaEnvironment } from './environment';
import { readBoundedText } from '../native/bounded-read';

/**
 * The paper's stocks environment: which one stock should a trader buy on 2023-12-01 and sell
 * on 2023-12-29? The trader sees, per stock, the mean closing price of each month from
 * December 2021 to November 2023 and the price now (the open of 2023-12-01), as in the
 * paper's prompts; the outcome is the return close(2023-12-29) ÷ open(2023-12-01) − 1.
 */
export const tickers = ['AMD', 'DIS', 'GME', 'GOOGL', 'META', 'NVDA', 'SPY'] as const;
const companyNames: Record<string, string> = {
  AMD: 'Advanced Micro Devices',
  DIS: 'The Walt Disney Company',
  GME: 'GameStop Corp',
  GOOGL: 'Alphabet Inc (Google)',
  META: 'Meta Platforms',
  NVDA: 'NVIDIA Corporation',
  SPY: 'SPDR S&P 500 ETF Trust',
};
export const buyDate = '2023-12-01';
export const sellDate = '2023-12-29';

export interface DailyPrice {
  date: string;
  open: number;
  close: number;
  line: number;
}

export interface PriceHistory {
  ticker: string;
  file: string;
  days: DailyPrice[];
  malformed: CsvProblem[];
}

const expectedHeader = ['Date', 'Open', 'High', 'Low', 'Close', 'Adj Close', 'Volume'];

export function parsePriceHistory(ticker: string, file: string, text: string): PriceHistory {
  const { header, rows, problems } = readCsv(file, text);
  const malformed = [...problems];
  if (header.join('|') !== expectedHeader.join('|')) {
    malformed.push({ file, line: 1, message: `header is "${header.join(',')}", expected "${expectedHeader.join(',')}"`, raw: header.join(',') });
    return { ticker, file, days: [], malformed };
  }
  const days: DailyPrice[] = [];
  for (const row of rows) {
    const [date = '', open = '', , , close = ''] = row.fields;
    const problem =
      row.fields.length !== 7
        ? `expected 7 fields, found ${row.fields.length}`
        : !/^\d{4}-\d{2}-\d{2}$/.test(date)
          ? `date "${date}" is not YYYY-MM-DD`
          : !(Number(open) > 0) || open.trim() === ''
            ? `open "${open}" is not a positive number`
            : !(Number(close) > 0) || close.trim() === ''
              ? `close "${close}" is not a positive number`
              : null;
    if (problem) malformed.push({ file, line: row.line, message: problem, raw: row.raw });
    else days.push({ date, open: Number(open), close: Number(close), line: row.line });
  }
  return { ticker, file, days, malformed };
}

/** Mean close per calendar month (YYYY-MM) over the months before `before`. */
export function monthlyMeans(history: PriceHistory, before: string): { month: string; mean: number }[] {
  const sums = new Map<string, { total: number; count: number }>();
  for (const day of history.days) {
    if (day.date >= before) continue;
    const month = day.date.slice(0, 7);
    const entry = sums.get(month) ?? { total: 0, count: 0 };
    entry.total += day.close;
    entry.count += 1;
    sums.set(month, entry);
  }
  return [...sums.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([month, { total, count }]) => ({ month, mean: total / count }));
}

export function loadStocks(dir: string): DellmaEnvironment {
  const histories = tickers.map((ticker) => {
    const file = join(dir, `${ticker}.csv`);
    let text: string;
    try {
      text = readBoundedText(file);
    } catch (error) {
      throw new WorkbenchError('not-found', `Cannot read ${file}: ${fileErrorReason(error)}`);
    }
    return parsePriceHistory(ticker, file, text);
  });
  const outcome: Record<string, number> = {};
  const current: Record<string, number> = {};
  for (const history of histories) {
    const buy = history.days.find((day) => day.date === buyDate);
    const sell = history.days.find((day) => day.date === sellDate);
    if (!buy || !sell) throw new WorkbenchError('invalid-request', `${history.file} has no usable row for ${buy ? sellDate : buyDate}`);
    outcome[history.ticker] = sell.close / buy.open - 1;
    current[history.ticker] = buy.open;
  }
  const sectionOf = new Map(
    histories.map((history) => [
      history.ticker,
      [
        `## ${history.ticker} (${companyNames[history.ticker] ?? history.ticker}), dollars per share`,
        `Price now (open of ${buyDate}): ${(current[history.ticker] ?? 0).toFixed(2)}`,
        `Mean closing price per month: ${monthlyMeans(history, buyDate)
          .map(({ month, mean }) => `${month}: ${mean.toFixed(2)}`)
          .join(', ')}`,
      ].join('\n'),
    ]),
  );
  const marketFactors = ['economic health', 'market sentiment and investor psychology', 'political events and government policies', "natural disasters and other 'black swan' events", 'geopolitical issues'];
  const stockFactors = (ticker: string): string[] => {
    const name = `${companyNames[ticker] ?? ticker} (${ticker})`;
    return [`mergers and major acquisitions involving ${name}`, `regulatory changes and legal issues affecting ${name}`, `financial health of ${name}`, `company growth of ${name}`, `product launches of ${name}`];
  };
  const factors: FactorSpec[] = [
    ...marketFactors.map((name): FactorSpec => ({ name, scope: { kind: 'shared' } })),
    ...tickers.flatMap((ticker) => stockFactors(ticker).map((name): FactorSpec => ({ name, scope: { kind: 'action', action: ticker } }))),
  ];
  return {
    name: 'stocks',
    actions: [...tickers],
    actionLabel: Object.fromEntries(tickers.map((ticker) => [ticker, `buy ${ticker} with the whole 10000 dollars`])),
    factors,
    goal: `I trade with 10000 dollars and may buy exactly one stock today, ${buyDate}, to sell on ${sellDate}, the last trading day of the month. I want the largest profit.`,
    contextFor: (actions) => actions.map((ticker) => sectionOf.get(ticker) ?? '').join('\n\n'),
    documents: [],
    problems: problemsFrom(tickers, outcome),
    outcome,
    outcomeUnit: `return from ${buyDate} (open) to ${sellDate} (close)`,
    defaults: { overlap: 0.5, softmaxTemperature: 0.1, alpha: { pairs: 2e-8, top1: 2e-8, naive: 2e-8 } },
    malformed: histories.flatMap((history) => history.malformed),
  };
}
