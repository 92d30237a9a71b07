import { createHash } from 'node:crypto';
import { z } from 'zod';
import { jsonDigest } from '../audit/digest';
import { checkRawChain, firstIssue } from '../audit/raw-chain';
import { hashSealEntry, type SealEntry } from '../audit/seal';
import { StrictJsonError, parseStrictJson } from '../audit/strict-json';
import { keyFingerprint, signatureMatches } from '../audit/signing';
import {
  bundleFields,
  bundleFormat,
  bundleRecordSchema,
  bundleVersion,
  readableBundleVersions,
  signOffRecordSchema,
  type BundleRecord,
  type JsonObject,
  type ReportBundle,
  type RunNotebook,
  type SealRecord,
} from './bundle-format';
import { itemLabel, notebookHashes } from './bundle-sections';

/** Where verification failed: a part of the bundle, the item's index and type when it has them, and why. */
export interface IntegrityFailure {
  section: 'bundle' | 'event' | 'seal' | 'transcript' | 'notebook';
  index: number | null;
  type: string | null;
  reason: string;
}

export type Verdict = { ok: true; bundle: ReportBundle } | { ok: false; failure: IntegrityFailure };

/** One line naming where a bundle fails, e.g. `event 12 (query-end): its content does not match its hash …`. */
export function describeFailure(failure: IntegrityFailure): string {
  const names: Record<IntegrityFailure['section'], string> = { bundle: 'bundle', event: 'event', seal: 'seal entry', transcript: 'transcript entry', notebook: 'notebook cell' };
  const where = failure.index === null ? (failure.section === 'notebook' ? 'notebook' : names[failure.section]) : `${names[failure.section]} ${failure.index}`;
  return `${where}${failure.type ? ` (${failure.type})` : ''}: ${failure.reason}`;
}

/**
 * A run-start that records a playbook (AutoPlan) must carry the sha256 of the text it records,
 * so the version a report names is the text the model was given.
 */
function checkPlaybook(entries: readonly { event: { type: string } }[]): { index: number; reason: string } | null {
  for (const [index, { event }] of entries.entries()) {
    if (event.type !== 'run-start') continue;
    const playbook = (event as { playbook?: unknown }).playbook;
    if (playbook === undefined) continue;
    if (!isObject(playbook) || typeof playbook['text'] !== 'string' || typeof playbook['sha256'] !== 'string') return { index, reason: 'its playbook record is malformed' };
    if (createHash('sha256').update(playbook['text']).digest('hex') !== playbook['sha256']) return { index, reason: 'its playbook text does not match the playbook sha256 it records' };
  }
  return null;
}

const sealEnvelopeSchema = z.strictObject({
  seq: z.number().int(),
  at: z.string(),
  record: z.looseObject({ type: z.string() }),
  prevHash: z.string(),
  hash: z.string(),
  signature: z.strictObject({ publicKey: z.string(), value: z.string() }).optional(),
});

/**
 * Verifies a bundle file's text (see `verifyBundle`). A leading UTF-8 byte-order mark, which
 * some editors and Windows tools add on save, is not part of the JSON and is ignored; any other
 * change still fails.
 */
export function verifyBundleText(text: string, options: { expectedHead?: string } = {}): Verdict {
  let value: unknown;
  try {
    // Strict: a repeated key, an escape or number canonical JSON never writes, a lone surrogate
    // or __proto__ could read one way here and another in a reader, grep or another parser.
    value = parseStrictJson(text.startsWith('\uFEFF') ? text.slice(1) : text);
  } catch (error) {
    if (!(error instanceof StrictJsonError)) throw error;
    if (error.kind === 'syntax') return fail('bundle', null, null, `not valid JSON, so it was cut short or edited by hand (${error.message})`);
    return fail('bundle', null, null, `written in a way JSON.stringify never writes, so it was edited by hand: ${error.message}`);
  }
  return verifyBundle(value, options);
}

/**
 * Checks every part of a bundle against its hash chain, in order — the root fields, each run
 * event, each seal entry, the head, each transcript line and each notebook cell — and reports
 * the first that fails. Nothing in a bundle is trusted until this returns `ok`.
 */
export function verifyBundle(value: unknown, options: { expectedHead?: string } = {}): Verdict {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('bundle', null, null, 'not a JSON object');
  const root = value as JsonObject;
  if (root['format'] !== bundleFormat) return fail('bundle', null, null, `not a Decision Workbench report bundle (format ${JSON.stringify(root['format'])}, expected "${bundleFormat}")`);
  if (typeof root['version'] === 'number' && root['version'] > bundleVersion) return fail('bundle', null, null, `version ${root['version']} is newer than this workbench reads (${bundleVersion})`);
  const version = readableBundleVersions.find((known) => known === root['version']);
  if (version === undefined) return fail('bundle', null, null, `unknown version ${JSON.stringify(root['version'])}`);
  for (const field of bundleFields) if (!(field in root)) return fail('bundle', null, null, `the field "${field}" is missing`);
  const extra = Object.keys(root).find((key) => !(bundleFields as readonly string[]).includes(key));
  if (extra !== undefined) return fail('bundle', null, null, `unexpected field "${extra}" (nothing may be added to a sealed bundle)`);
  const { events, transcript, notebook, seal, head } = root;
  if (!Array.isArray(events) || events.length === 0) return fail('bundle', null, null, '"events" must be a non-empty list of run-log entries');
  if (!Array.isArray(seal) || seal.length === 0) return fail('bundle', null, null, '"seal" must be a non-empty list of seal entries');
  if (!Array.isArray(transcript)) return fail('bundle', null, null, '"transcript" must be a list of transcript lines');
  if (!isObject(notebook) || !Array.isArray(notebook['cells'])) return fail('bundle', null, null, '"notebook" must be an object with a list of "cells"');
  if (typeof head !== 'string') return fail('bundle', null, null, '"head" must be a hash');

  const chain = checkRawChain(events);
  if (!chain.ok) return fail('event', chain.failure.index, chain.failure.type, chain.failure.reason);
  const lastEvent = chain.entries[chain.entries.length - 1] as (typeof chain.entries)[number];
  const playbookFailure = checkPlaybook(chain.entries);
  if (playbookFailure) return fail('event', playbookFailure.index, 'run-start', playbookFailure.reason);

  const entries: SealEntry<SealRecord>[] = [];
  let bundleRecord: BundleRecord | null = null;
  for (const [index, raw] of seal.entries()) {
    const envelope = sealEnvelopeSchema.safeParse(raw);
    const type = itemLabel(isObject(raw) ? raw['record'] : null);
    if (!envelope.success) return fail('seal', index, type, `malformed entry: ${firstIssue(envelope.error)}`);
    const entry = envelope.data;
    const previous = entries[index - 1];
    if (entry.seq !== index) return fail('seal', index, type, `sequence number ${entry.seq} where ${index} was expected (entries were removed, added or reordered)`);
    if (previous === undefined && entry.prevHash !== lastEvent.hash) {
      const sealed = entry.record['eventCount'];
      const counted = typeof sealed === 'number' && sealed !== events.length ? `it seals ${sealed} run events but the bundle has ${events.length}: events were removed or added after it was sealed` : 'does not link to the last run event: the run log was changed after it was sealed';
      return fail('seal', index, type, counted);
    }
    if (previous !== undefined && entry.prevHash !== previous.hash) return fail('seal', index, type, 'does not link to the seal entry before it');
    if (hashSealEntry(entry) !== entry.hash) return fail('seal', index, type, 'its content does not match its hash (it was changed after it was sealed)');
    const record = (index === 0 ? bundleRecordSchema : signOffRecordSchema).safeParse(entry.record);
    if (!record.success) return fail('seal', index, type, `${index === 0 ? 'the first entry must describe the bundle' : 'entries after the first must be sign-offs'}: ${firstIssue(record.error)}`);
    if (record.data.type === 'bundle') {
      if (record.data.runId !== lastEvent.runId) return fail('seal', index, type, `seals run ${record.data.runId}, but the events are of run ${lastEvent.runId}`);
      if (record.data.version !== version) return fail('seal', index, type, `seals a version ${record.data.version} bundle, but the bundle says version ${version}`);
      bundleRecord = record.data;
    }
    const signatureFailure = checkSignature(entry, record.data.type === 'bundle' ? (record.data.signer?.fingerprint ?? null) : (record.data.fingerprint ?? null));
    if (signatureFailure) return fail('seal', index, type, signatureFailure);
    entries.push({ ...entry, record: record.data });
  }
  if (!bundleRecord) return fail('seal', 0, null, 'the bundle record is missing');
  const lastSeal = entries[entries.length - 1] as SealEntry<SealRecord>;
  if (head !== lastSeal.hash) return fail('bundle', null, null, `its head ${head} is not the hash of its last seal entry: seal entries were removed or added`);
  if (options.expectedHead !== undefined && head !== options.expectedHead.trim().toLowerCase()) {
    return fail('bundle', null, null, `its head ${head} is not the expected ${options.expectedHead.trim()}: it is another bundle, or it was re-sealed after editing`);
  }

  const transcriptFailure = firstMismatch(transcript, bundleRecord.transcript);
  if (transcriptFailure) return fail('transcript', transcriptFailure.index, transcriptFailure.type, transcriptFailure.reason);
  const notebookObject: RunNotebook = { ...notebook, cells: notebook['cells'] };
  if (notebookHashes(notebookObject).header !== bundleRecord.notebook.header) return fail('notebook', null, null, 'its title or metadata do not match the hashes sealed in seal entry 0');
  const cellFailure = firstMismatch(notebookObject.cells, bundleRecord.notebook.cells);
  if (cellFailure) return fail('notebook', cellFailure.index, cellFailure.type, cellFailure.reason);

  return {
    ok: true,
    bundle: {
      format: bundleFormat,
      version,
      head,
      events: chain.entries,
      transcript: transcript.filter(isObject),
      notebook: notebookObject,
      seal: entries,
    },
  };
}

/**
 * Why an entry's signature does not hold, or null when it does or the entry is unsigned. The
 * record (inside the hash) declares the key's fingerprint; the signature (outside it) must be
 * made by that very key over the entry's hash. Whether the key is one to trust is a separate
 * question (bundle-signatures.ts): here a signature only has to match.
 */
function checkSignature(entry: z.infer<typeof sealEnvelopeSchema>, declared: string | null): string | null {
  const signature = entry.signature;
  if (declared === null) return signature ? 'it carries a signature its sealed record does not declare (one was added after sealing)' : null;
  if (!signature) return `it declares a signature by ${declared} but carries none (the signature was removed)`;
  if (keyFingerprint(signature.publicKey) !== declared) return `its signature is by key ${keyFingerprint(signature.publicKey)}, not by ${declared} as its record declares`;
  if (!signatureMatches(signature.publicKey, entry.hash, signature.value)) {
    return `its signature by ${declared} does not match: the bundle was changed and re-sealed after that key signed it`;
  }
  return null;
}

function firstMismatch(items: readonly unknown[], sealed: string[]): { index: number; type: string | null; reason: string } | null {
  for (let index = 0; index < Math.max(items.length, sealed.length); index++) {
    const item = items[index];
    const expected = sealed[index];
    if (item === undefined) return { index, type: null, reason: `missing: ${sealed.length} were sealed, the bundle has ${items.length}` };
    if (expected === undefined) return { index, type: itemLabel(item), reason: `not sealed: ${sealed.length} were sealed, the bundle has ${items.length}` };
    if (jsonDigest(item) !== expected) return { index, type: itemLabel(item), reason: 'its content does not match the hash sealed in seal entry 0 (it was changed, moved or replaced)' };
  }
  return null;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(section: IntegrityFailure['section'], index: number | null, type: string | null, reason: string): Verdict {
  return { ok: false, failure: { section, index, type, reason } };
}
