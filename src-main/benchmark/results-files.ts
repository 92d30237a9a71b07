import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resultsHtml } from './results-html';
import { resultsMarkdown } from './results-markdown';
import { collectResults, resultsTable, type ResultsTable } from './results-table';

export const RESULT_FILES = { json: 'results.json', markdown: 'results.md', html: 'report.html' } as const;

function writeWhole(path: string, text: string): void {
  const partial = `${path}.${process.pid}.tmp`;
  writeFileSync(partial, text);
  renameSync(partial, path);
}

/** Reads every recorded question under `dir` and writes results.json, results.md and report.html beside them. */
export function writeResultFiles(dir: string): ResultsTable {
  const table = resultsTable(collectResults(dir));
  writeWhole(join(dir, RESULT_FILES.json), `${JSON.stringify(table, null, 2)}\n`);
  writeWhole(join(dir, RESULT_FILES.markdown), resultsMarkdown(table));
  writeWhole(join(dir, RESULT_FILES.html), resultsHtml(table));
  return table;
}
