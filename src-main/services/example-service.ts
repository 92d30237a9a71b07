import { join } from 'node:path';
import type { z } from 'zod';
import type { exampleRequests } from '../contract/examples';
import { agricultureExample, agricultureQuestion, agricultureReport, describeImport, writeAgricultureDatabase } from '../dellma-data/agriculture-example';
import { fruits } from '../dellma-data/agriculture';
import type { ConnectionStore } from '../workspace/connection-store';
import type { DocumentStore } from '../workspace/document-store';
import type { NotebookStore } from '../workspace/notebook-store';

type Requests = typeof exampleRequests;
type Result = z.output<Requests['examples/dellma-agriculture']['result']>;

/**
 * Opens the DeLLMa agriculture example: the database in `<workspace>/examples/`, its
 * connection (reused when one already points at it), a new notebook with the report attached,
 * a note of what the import did (malformed rows listed), a query of the fruits' figures and
 * the question for DeLLMa.
 */
export async function openAgricultureExample(dependencies: {
  workspaceDir: string;
  dataDir: string;
  notebooks: NotebookStore;
  connections: ConnectionStore;
  documents: DocumentStore;
  /** Closes the open connector of a connection, so its file can be rebuilt. */
  release(connectionId: string): Promise<void>;
}): Promise<Result> {
  const { notebooks, connections, documents } = dependencies;
  const path = join(dependencies.workspaceDir, 'examples', 'dellma-agriculture-2021.sqlite');
  const existing = connections.list().find((connection) => connection.target.engine === 'sqlite' && connection.target.path === path);
  if (existing) await dependencies.release(existing.id);
  const outcome = writeAgricultureDatabase(dependencies.dataDir, path);
  const report = agricultureReport(dependencies.dataDir);
  const connection = existing ?? connections.add(agricultureExample.connectionName, { engine: 'sqlite', path });
  const notebook = notebooks.create(agricultureExample.notebookTitle);
  const document = documents.add(notebook.id, report.name, report.bytes);
  const summary = describeImport(outcome);
  const provenance = { origin: 'DeLLMa agriculture example' };
  let after: string | undefined;
  const add = (cell: Omit<Parameters<NotebookStore['insertCell']>[0], 'notebookId' | 'afterCellId' | 'provenance'>): void => {
    after = notebooks.insertCell({ ...cell, notebookId: notebook.id, afterCellId: after, provenance }).id;
  };
  add({
    kind: 'note',
    author: 'engine',
    source: [
      '## The DeLLMa agriculture example',
      'The decision problem of the DeLLMa paper: a California farmer chooses one fruit to plant, knowing the USDA statistics of 2021 and the USDA ERS fruit outlook of September 2021 — not how 2022 turned out.',
      `**Data:** ${connection.name}. ${summary}.`,
      `**Document:** ${report.name} is attached to this notebook (Documents, above); DeLLMa reads it into the context of its forecast.`,
      'Run the question below with **DeLLMa** (preselected): the model names the unknowns, forecasts them, ranks sampled futures of each fruit, and the decision follows from expected utility.',
    ].join('\n\n'),
  });
  add({
    kind: 'query',
    author: 'engine',
    connectionId: connection.id,
    source: `SELECT commodity, yield_per_acre, yield_unit, price, price_unit, revenue_per_acre\nFROM ${agricultureExample.table}\nWHERE commodity IN (${fruits.map((fruit) => `'${fruit}'`).join(', ')})\nORDER BY commodity;`,
  });
  add({ kind: 'question', author: 'engine', connectionId: connection.id, source: agricultureQuestion, data: { technique: 'dellma' } });
  return {
    notebookId: notebook.id,
    connectionId: connection.id,
    documentId: document.id,
    question: agricultureQuestion,
    imported: { table: outcome.table, rows: outcome.rows, malformed: outcome.malformed.map(({ line, message, raw }) => ({ line, message, raw })), summary },
  };
}
