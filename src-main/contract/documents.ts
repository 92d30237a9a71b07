import { z } from 'zod';

/**
 * Documents the analyst attaches to a notebook (plain text or Markdown): kept in the
 * workspace with the notebook, passed to the notebook's runs as `{ name, text }`. DeLLMa
 * reads them into its context (bounded, src-main/engine/techniques/dellma/documents.ts);
 * the other techniques do not use them. Their text is data the model sees, never markup.
 */
export const documentLimits = {
  /** Bytes of one document as uploaded. */
  maxBytes: 1_000_000,
  /** Documents attached to one notebook. */
  perNotebook: 20,
  /** Characters of a document's name. */
  maxName: 200,
  /**
   * Characters of attached documents a DeLLMa context takes, all documents together. The
   * context goes into the forecast call and into every ranking call, so a long report would
   * multiply its cost by the number of batches; the paper's agent read a summary of its report.
   */
  contextChars: 8000,
} as const;

export const documentSummarySchema = z.object({
  id: z.string(),
  notebookId: z.string(),
  name: z.string(),
  /** Characters of the text (what the context budget counts). */
  chars: z.number().int(),
  bytes: z.number().int(),
  sha256: z.string(),
  addedAt: z.string(),
});
export type DocumentSummary = z.infer<typeof documentSummarySchema>;

/** A document as a run receives it. */
export const runDocumentSchema = z.object({ name: z.string(), text: z.string() });
export type RunDocument = z.infer<typeof runDocumentSchema>;

export const documentRequests = {
  /** The notebook's attached documents, oldest first (no text: `documents/get` for one). */
  'documents/list': { params: z.object({ notebookId: z.string() }), result: z.array(documentSummarySchema) },
  'documents/get': { params: z.object({ id: z.string() }), result: documentSummarySchema.extend({ text: z.string() }) },
  /**
   * Attaches a file's bytes (base64) as a document; refused with the reason when it is binary,
   * not UTF-8, empty or over `documentLimits.maxBytes`.
   */
  'documents/add': {
    params: z.object({ notebookId: z.string(), name: z.string().trim().min(1), base64: z.string() }),
    result: documentSummarySchema,
  },
  /** Moves the document to the trash (listed there with the notebook's title); `documents/restore` undoes it. */
  'documents/remove': { params: z.object({ id: z.string() }), result: z.object({ ok: z.literal(true) }) },
  /** Puts a removed document back; refused when its name was attached again meanwhile. */
  'documents/restore': { params: z.object({ id: z.string() }), result: documentSummarySchema },
} as const;
