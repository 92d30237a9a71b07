import { z } from 'zod';
import type { RawLoggedEvent } from '../audit/raw-chain';
import type { SealEntry } from '../audit/seal';

/**
 * The JSON bundle: everything a report is made from, and everything needed to verify it later,
 * in one file. Described for readers in docs/reports.md.
 */
export const bundleFormat = 'decision-workbench/report-bundle';
/** 2 adds optional Ed25519 signatures to seal entries; version 1 bundles (unsigned) are still read. */
export const bundleVersion = 2;
export const readableBundleVersions = [1, 2] as const;
export const notebookFormat = 'decision-workbench/notebook';

/** A JSON object whose fields are not trusted yet. */
export type JsonObject = Record<string, unknown>;

/**
 * The notebook projection of one run, as `dwb run` writes it to notebook.json: `format`,
 * `version`, `title`, `runId` and the cells. Read back from a bundle, only `cells` is relied on.
 */
export interface RunNotebook extends JsonObject {
  cells: unknown[];
}

/** The first seal entry: what this bundle holds, section by section, as hashes. */
export const bundleRecordSchema = z.strictObject({
  type: z.literal('bundle'),
  format: z.literal(bundleFormat),
  version: z.union([z.literal(1), z.literal(2)]),
  runId: z.string(),
  /** The workbench that made the bundle, e.g. `Decision Workbench 0.1.0`. */
  generator: z.string(),
  /** How many run-log events the seal covers. */
  eventCount: z.number().int().nonnegative(),
  /** sha256 of the canonical JSON of each transcript line, in order. */
  transcript: z.array(z.string()),
  /** sha256 of the notebook without its cells, and of each cell in order. */
  notebook: z.strictObject({ header: z.string(), cells: z.array(z.string()) }),
  /** Who sealed the bundle, when a key signed it: the name registered with the key and its fingerprint. */
  signer: z.strictObject({ name: z.string().trim().min(1), fingerprint: z.string() }).optional(),
});
export type BundleRecord = z.infer<typeof bundleRecordSchema>;

/**
 * An analyst's sign-off: who, and what they said; the entry's `at` says when. A signed sign-off
 * names the fingerprint of the key that signed it, whose registered name must be `name`.
 */
export const signOffRecordSchema = z.strictObject({
  type: z.literal('sign-off'),
  name: z.string().trim().min(1),
  comment: z.string(),
  fingerprint: z.string().optional(),
});
export type SignOffRecord = z.infer<typeof signOffRecordSchema>;

export type SealRecord = BundleRecord | SignOffRecord;

/** What an analyst types to sign a report off. */
export interface SignOffInput {
  name: string;
  comment: string;
}

export interface ReportBundle {
  format: typeof bundleFormat;
  version: (typeof readableBundleVersions)[number];
  /** The hash of the last seal entry: the one value that pins the whole bundle. */
  head: string;
  /** The run log exactly as logged, hash-chained. */
  events: RawLoggedEvent[];
  /** The model transcript, one object per line of transcript.jsonl. */
  transcript: JsonObject[];
  notebook: RunNotebook;
  /** The bundle record, then each sign-off, chained after the run log's last event. */
  seal: SealEntry<SealRecord>[];
}

/** The root fields of a bundle, in the order they are written. */
export const bundleFields = ['format', 'version', 'head', 'events', 'transcript', 'notebook', 'seal'] as const;
