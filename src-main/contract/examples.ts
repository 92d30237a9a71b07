import { z } from 'zod';

/** The bundled examples the app can open in one click. */
export const exampleRequests = {
  /**
   * The paper's agriculture environment [DeLLMa]: builds a SQLite database of the USDA
   * California statistics of 2021 in the workspace (never the 2022 ground truth), adds it as a
   * connection, attaches the USDA report to a new notebook and asks there which fruit to plant
   * with DeLLMa. Again: the database is rebuilt and a new notebook opened.
   */
  'examples/dellma-agriculture': {
    params: z.object({}),
    result: z.object({
      notebookId: z.string(),
      connectionId: z.string(),
      documentId: z.string(),
      question: z.string(),
      /** What the import did, as the notebook's note says it. */
      imported: z.object({
        table: z.string(),
        rows: z.number().int(),
        malformed: z.array(z.object({ line: z.number().int(), message: z.string(), raw: z.string() })),
        summary: z.string(),
      }),
    }),
  },
} as const;
