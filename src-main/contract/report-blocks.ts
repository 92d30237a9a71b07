/**
 * What a technique puts in a report, in no format: a handful of block kinds that every report
 * renderer (HTML, Markdown) lays out its own way. A technique projects its own steps and
 * sections into these (its definition's `reports`), so the renderers name no technique.
 */
export type ReportBlock =
  /** A sentence or two of prose. */
  | { kind: 'paragraph'; text: string }
  /** A step's text as the model was shown it (tables drawn in characters keep their layout). */
  | { kind: 'observation'; text: string }
  | { kind: 'table'; header: readonly string[]; rows: readonly (readonly string[])[]; className?: string }
  /** A full record folded under its summary (HTML) or fenced as JSON (Markdown). */
  | { kind: 'record'; summary: string; value: unknown };

/** One of a technique's step items in the trace: a label and what it shows. */
export interface ReportItemBlocks {
  label: string;
  blocks: readonly ReportBlock[];
}

/** A section of a technique's own, placed after the decision's sections (DeLLMa's exact outcomes). */
export interface ReportSectionBlocks {
  id: string;
  title: string;
  blocks: readonly ReportBlock[];
}
