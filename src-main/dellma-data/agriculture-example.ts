import { mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { WorkbenchError, fileErrorReason } from '../contract/errors';
import { openSqliteFile } from '../native/better-sqlite3';
import { fruits } from './agriculture';
import type { CsvProblem } from './csv-lines';
import { parseUsdaStats, revenuePerAcre } from './usda';

/**
 * The paper's agriculture environment as a workbench example: the USDA NASS California
 * statistics of 2021 (what the farmer knows) in a SQLite database, each figure parsed with its
 * unit into a number, and the USDA ERS report of September 2021 as a document to attach. The
 * 2022 figures are the benchmark's ground truth and are never read here.
 */
export const agricultureExample = {
  table: 'ca_crop_stats_2021',
  malformedTable: 'import_problems',
  statsFile: join('stats', 'CA-2021.csv'),
  reportFile: join('reports', 'fruit-sept-2021.txt'),
  reportName: 'fruit-sept-2021.txt',
  notebookTitle: 'DeLLMa example: which fruit to plant (agriculture)',
  connectionName: 'DeLLMa agriculture: California crops 2021',
} as const;

/** The example's question: the paper's goal, its seven fruits as options and its two shared unknowns. */
export const agricultureQuestion = [
  'I farm 10 acres in California and must choose the one fruit to plant for next year. I want the highest profit from the harvest.',
  '',
  `Options: ${fruits.join('; ')}`,
  'Unknowns: climate condition; supply chain disruptions',
].join('\n');

export interface AgricultureImportOutcome {
  path: string;
  table: string;
  /** Rows written, one per commodity that parsed. */
  rows: number;
  /** Rows of the file that did not parse: written to `import_problems` and reported, never dropped silently. */
  malformed: CsvProblem[];
  source: string;
}

function readSource(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new WorkbenchError('not-found', `Cannot read the ${what} ${path}: ${fileErrorReason(error)}`);
  }
}

/**
 * Builds `path` from `<dataDir>/stats/CA-2021.csv`: the table of commodities with yield and
 * price as numbers with their units (and revenue per acre where the units convert), and the
 * malformed rows with file, line, reason and raw text. Built beside the target and renamed into
 * place, so a failure never leaves a half-written database under the final name; an existing
 * file is replaced.
 */
export function writeAgricultureDatabase(dataDir: string, path: string): AgricultureImportOutcome {
  const source = join(dataDir, agricultureExample.statsFile);
  const stats = parseUsdaStats(source, readSource(source, 'USDA statistics'));
  mkdirSync(dirname(path), { recursive: true });
  const building = `${path}.partial`;
  rmSync(building, { force: true });
  const database = openSqliteFile(building);
  try {
    database.transaction(() => {
      database.exec(`CREATE TABLE ${agricultureExample.table} (
        commodity TEXT PRIMARY KEY,
        year INTEGER NOT NULL,
        yield_per_acre REAL NOT NULL,
        yield_unit TEXT NOT NULL,
        price REAL NOT NULL,
        price_unit TEXT NOT NULL,
        price_qualifier TEXT,
        revenue_per_acre REAL,
        yield_as_published TEXT NOT NULL,
        price_as_published TEXT NOT NULL,
        source_line INTEGER NOT NULL
      )`);
      database.exec(`CREATE TABLE ${agricultureExample.malformedTable} (file TEXT NOT NULL, line INTEGER NOT NULL, problem TEXT NOT NULL, raw TEXT NOT NULL)`);
      const insert = database.prepare(`INSERT INTO ${agricultureExample.table} VALUES (?, 2021, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
      for (const row of stats.rows) {
        const revenue = revenuePerAcre(row);
        insert.run(row.commodity, row.yield.value, row.yield.unit, row.price.value, row.price.unit, row.price.qualifier, typeof revenue === 'number' ? Math.round(revenue * 100) / 100 : null, row.yield.text, row.price.text, row.line);
      }
      const problem = database.prepare(`INSERT INTO ${agricultureExample.malformedTable} VALUES (?, ?, ?, ?)`);
      for (const bad of stats.malformed) problem.run(agricultureExample.statsFile, bad.line, bad.message, bad.raw);
    })();
    database.pragma('journal_mode = DELETE');
  } finally {
    database.close();
  }
  renameSync(building, path);
  return { path, table: agricultureExample.table, rows: stats.rows.length, malformed: stats.malformed, source };
}

/** The report the farmer reads, as a document to attach (`{ name, bytes }`, checked like any attachment). */
export function agricultureReport(dataDir: string): { name: string; bytes: Uint8Array } {
  const path = join(dataDir, agricultureExample.reportFile);
  try {
    return { name: agricultureExample.reportName, bytes: new Uint8Array(readFileSync(path)) };
  } catch (error) {
    throw new WorkbenchError('not-found', `Cannot read the report ${path}: ${fileErrorReason(error)}`);
  }
}

/** "12 rows; 1 malformed row reported: line 5 (…)". */
export function describeImport(outcome: AgricultureImportOutcome): string {
  const malformed = outcome.malformed.length
    ? `; ${outcome.malformed.length} malformed row(s) kept in ${agricultureExample.malformedTable}, not imported: ${outcome.malformed.map((problem) => `line ${problem.line} (${problem.message})`).join('; ')}`
    : '; no malformed rows';
  return `${outcome.table}: ${outcome.rows} commodities with yield and price as numbers with their units${malformed}`;
}
