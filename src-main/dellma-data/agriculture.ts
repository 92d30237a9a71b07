import { join } from 'node:path';
import { z } from 'zod';
import { WorkbenchError, fileErrorReason } from '../contract/errors';
import type { FactorSpec } from '../engine/techniques/dellma/belief';
import type { CsvProblem } from './csv-lines';
import { problemsFrom, type DellmaEnvironment } from './environment';
import { parseUsdaStats, revenuePerAcre, type CommodityStats, type UsdaStats } from './usda';
import { readBoundedText } from '../native/bounded-read';

/**
 * The paper's agriculture environment: which fruit should a California farmer plant? The
 * farmer knows the USDA ERS report of September 2021 (its summary, as the paper's agent used
 * it; the full report is attached) and the 2021 NASS statistics; the outcome of a fruit is its
 * 2022 revenue per acre (yield × price from CA-2022.csv, units converted).
 */
export const fruits = ['apple', 'avocado', 'grape', 'grapefruit', 'lemon', 'peach', 'pear'] as const;

const summarySchema = z.looseObject({
  summary: z.string(),
  factors: z.array(z.string()).optional(),
});
const fruitSummarySchema = z.object({ summary: z.string(), yield: z.string(), price: z.string() });

export interface AgricultureData {
  environment: DellmaEnvironment;
  stats2021: UsdaStats;
  stats2022: UsdaStats;
}

function readText(path: string): string {
  try {
    return readBoundedText(path);
  } catch (error) {
    throw new WorkbenchError('not-found', `Cannot read ${path}: ${fileErrorReason(error)}`);
  }
}

/** Reads `<dir>/stats/CA-2021.csv`, `CA-2022.csv`, `reports/fruit-sept-2021.txt` and its summary. */
export function loadAgriculture(dir: string): AgricultureData {
  const file2021 = join(dir, 'stats', 'CA-2021.csv');
  const file2022 = join(dir, 'stats', 'CA-2022.csv');
  const stats2021 = parseUsdaStats(file2021, readText(file2021));
  const stats2022 = parseUsdaStats(file2022, readText(file2022));
  const reportPath = join(dir, 'reports', 'fruit-sept-2021.txt');
  const summaryPath = join(dir, 'reports', 'summary', 'fruit-sept-2021.json');
  const report = readText(reportPath);
  let summaryJson: unknown;
  try {
    summaryJson = JSON.parse(readText(summaryPath));
  } catch (error) {
    throw new WorkbenchError('invalid-request', `${summaryPath} is not JSON: ${(error as Error).message}`);
  }
  const summary = summarySchema.safeParse(summaryJson);
  if (!summary.success) throw new WorkbenchError('invalid-request', `${summaryPath}: ${summary.error.issues[0]?.message ?? 'unexpected shape'}`);
  const perFruit = new Map<string, z.infer<typeof fruitSummarySchema>>();
  for (const fruit of fruits) {
    const entry = fruitSummarySchema.safeParse((summaryJson as Record<string, unknown>)[fruit]);
    if (!entry.success) throw new WorkbenchError('invalid-request', `${summaryPath}: no usable summary for ${fruit}`);
    perFruit.set(fruit, entry.data);
  }

  const malformed: CsvProblem[] = [...stats2021.malformed, ...stats2022.malformed];
  const find = (stats: UsdaStats, fruit: string): CommodityStats => {
    const row = stats.rows.find((candidate) => candidate.commodity === fruit);
    if (!row) throw new WorkbenchError('invalid-request', `${stats.file} has no usable row for ${fruit}${stats.malformed.length ? ` (malformed rows: ${stats.malformed.map((p) => `line ${p.line}`).join(', ')})` : ''}`);
    return row;
  };
  const outcome: Record<string, number> = {};
  for (const fruit of fruits) {
    const revenue = revenuePerAcre(find(stats2022, fruit));
    if (typeof revenue === 'string') throw new WorkbenchError('invalid-request', `${file2022}: ${revenue}`);
    outcome[fruit] = revenue;
  }
  const known2021 = new Map<string, CommodityStats>(fruits.map((fruit) => [fruit, find(stats2021, fruit)]));

  const factors: FactorSpec[] = [
    { name: 'climate condition', scope: { kind: 'shared' } },
    { name: 'supply chain disruptions', scope: { kind: 'shared' } },
    ...fruits.flatMap((fruit): FactorSpec[] => [
      { name: `${fruit} price change`, scope: { kind: 'action', action: fruit } },
      { name: `${fruit} yield change`, scope: { kind: 'action', action: fruit } },
    ]),
  ];

  const contextFor = (actions: readonly string[]): string => {
    const sections = actions.map((fruit) => {
      const notes = perFruit.get(fruit);
      const stats = known2021.get(fruit);
      return [
        `## ${fruit}`,
        `Report notes: ${notes?.summary ?? ''}`,
        `California statistics for 2021: yield ${stats?.yield.text ?? '?'}, price ${stats?.price.text ?? '?'}.`,
      ].join('\n');
    });
    return [
      `Source: USDA ERS "Fruit and Tree Nuts Outlook", September 2021 (summary), and USDA NASS California statistics for 2021.`,
      `Market overview: ${summary.data.summary}`,
      ...sections,
    ].join('\n\n');
  };

  const environment: DellmaEnvironment = {
    name: 'agriculture',
    actions: [...fruits],
    actionLabel: Object.fromEntries(fruits.map((fruit) => [fruit, `plant ${fruit} on all 10 acres`])),
    factors,
    goal: 'I farm 10 acres in California and must choose the one fruit to plant for next year. I want the highest profit from the harvest.',
    contextFor,
    documents: [{ name: 'fruit-sept-2021.txt (USDA ERS Fruit and Tree Nuts Outlook, September 2021)', text: report }],
    problems: problemsFrom(fruits, outcome),
    outcome,
    outcomeUnit: '$ per acre (2022)',
    defaults: { overlap: 0.25, softmaxTemperature: 1, alpha: { pairs: 2e-3, top1: 1e-3, naive: 1e-3 } },
    malformed,
  };
  return { environment, stats2021, stats2022 };
}
