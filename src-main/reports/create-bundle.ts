import { checkRawChain } from '../audit/raw-chain';
import { sealEntry, type SealEntry } from '../audit/seal';
import type { Signer } from '../audit/signing';
import { WorkbenchError } from '../contract/errors';
import { bundleFormat, bundleVersion, type JsonObject, type ReportBundle, type RunNotebook, type SealRecord, type SignOffInput } from './bundle-format';
import { notebookHashes, transcriptHashes } from './bundle-sections';

/** What a run left behind: its log, its transcript and its notebook cells. */
export interface RunMaterials {
  /** Run-log entries as read; the chain check in `sealBundle` is what makes them trusted. */
  events: readonly unknown[];
  transcript: JsonObject[];
  notebook: RunNotebook;
}

/**
 * Seals a run's materials into a bundle: one seal entry recording the hash of every transcript
 * line and notebook cell, chained to the run log's last event, then the sign-off if there is
 * one. With a signer, the seal entry names it and carries its signature. Refuses a run log
 * whose chain is already broken — a report must not vouch for it.
 */
export function sealBundle(materials: RunMaterials, options: { at: string; generator: string; signOff?: SignOffInput | null; signer?: Signer | null }): ReportBundle {
  const checked = checkRawChain(materials.events);
  if (!checked.ok) {
    const { index, type, reason } = checked.failure;
    throw new WorkbenchError('invalid-request', `The run log is broken at event ${index} (${type ?? 'unreadable'}): ${reason}`);
  }
  const last = checked.entries.at(-1);
  if (!last) throw new WorkbenchError('invalid-request', 'The run log is empty: there is no run to report on');
  const signer = options.signer ?? null;
  const first: SealEntry<SealRecord> = signed(
    sealEntry({ headHash: last.hash }, options.at, {
      type: 'bundle',
      format: bundleFormat,
      version: bundleVersion,
      runId: last.runId,
      generator: options.generator,
      eventCount: checked.entries.length,
      transcript: transcriptHashes(materials.transcript),
      notebook: notebookHashes(materials.notebook),
      ...(signer ? { signer: { name: signer.name, fingerprint: signer.fingerprint } } : {}),
    }),
    signer,
  );
  const bundle: ReportBundle = {
    format: bundleFormat,
    version: bundleVersion,
    head: first.hash,
    events: checked.entries,
    transcript: materials.transcript,
    notebook: materials.notebook,
    seal: [first],
  };
  return options.signOff ? addSignOff(bundle, options.signOff, options.at, signer) : bundle;
}

/**
 * The bundle with one more sign-off chained after its last seal entry, signed by the analyst's
 * key. A sign-off without a key, or in another name than the key's, is refused: a name anyone
 * can type proves nothing.
 */
export function addSignOff(bundle: ReportBundle, signOff: SignOffInput, at: string, signer: Signer | null): ReportBundle {
  const name = signOff.name.trim();
  if (name === '') throw new WorkbenchError('invalid-request', 'A sign-off needs the name of the person signing');
  if (!signer) throw new WorkbenchError('invalid-request', 'A sign-off is signed with the analyst’s key, and there is none: create one with `dwb keys create --name NAME`');
  if (name !== signer.name) {
    throw new WorkbenchError('invalid-request', `The signing key ${signer.fingerprint} is registered to "${signer.name}": a sign-off with it must be in that name, not "${name}"`);
  }
  const last = bundle.seal.at(-1);
  if (!last) throw new WorkbenchError('invalid-request', 'The bundle has no seal to sign after');
  const entry = signed(sealEntry<SealRecord>(last, at, { type: 'sign-off', name, comment: signOff.comment.trim(), fingerprint: signer.fingerprint }), signer);
  return { ...bundle, seal: [...bundle.seal, entry], head: entry.hash };
}

function signed(entry: SealEntry<SealRecord>, signer: Signer | null): SealEntry<SealRecord> {
  return signer ? { ...entry, signature: { publicKey: signer.publicKey, value: signer.signHash(entry.hash) } } : entry;
}

/** The bundle's file text: indented JSON, fields in a fixed order, ending with a newline. */
export function serializeBundle(bundle: ReportBundle): string {
  const { format, version, head, events, transcript, notebook, seal } = bundle;
  return `${JSON.stringify({ format, version, head, events, transcript, notebook, seal }, null, 2)}\n`;
}
