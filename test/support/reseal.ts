import { hashEntry } from '../../src-main/audit/hash-chain';
import { hashSealEntry } from '../../src-main/audit/seal';
import type { Signer } from '../../src-main/audit/signing';
import { notebookHashes, transcriptHashes } from '../../src-main/reports/bundle-sections';

type Tree = Record<string, unknown>;
type Entry = Tree & { seq: number; prevHash: string; hash: string };
type SealEntryTree = Entry & { at: string; record: Tree; signature?: { publicKey: string; value: string } };

/** What a forger does about the signatures after re-sealing. */
export type SignatureHandling = 'keep' | 'strip' | { resign: Signer };

/**
 * What someone who edited a bundle and knows the format would do next: recompute every hash —
 * each run event's, the transcript and notebook hashes in the bundle record, each seal entry's
 * and the head — so that the hash chain checks out again. The signatures they cannot remake
 * with the analyst's key: they keep them, strip them (with the records' claims), or sign with a
 * key of their own under the analyst's name.
 */
export function resealBundle(bundle: Tree, signatures: SignatureHandling): Tree {
  const tree = structuredClone(bundle);
  const events = tree['events'] as Entry[];
  let previous = '';
  events.forEach((entry, index) => {
    entry.seq = index;
    entry.prevHash = previous;
    entry.hash = hashEntry(entry as unknown as Parameters<typeof hashEntry>[0]);
    previous = entry.hash;
  });
  const seal = tree['seal'] as SealEntryTree[];
  seal.forEach((entry, index) => {
    const record = entry.record;
    if (record['type'] === 'bundle') {
      record['eventCount'] = events.length;
      record['transcript'] = transcriptHashes(tree['transcript'] as unknown[]);
      record['notebook'] = notebookHashes(tree['notebook'] as { cells: unknown[] });
    }
    if (signatures === 'strip') {
      delete entry.signature;
      delete record['fingerprint'];
      delete record['signer'];
    } else if (typeof signatures === 'object') {
      if (record['type'] === 'bundle') record['signer'] = { name: signatures.resign.name, fingerprint: signatures.resign.fingerprint };
      else record['fingerprint'] = signatures.resign.fingerprint;
    }
    entry.seq = index;
    entry.prevHash = previous;
    entry.hash = hashSealEntry(entry);
    if (typeof signatures === 'object') entry.signature = { publicKey: signatures.resign.publicKey, value: signatures.resign.signHash(entry.hash) };
    previous = entry.hash;
  });
  tree['head'] = previous;
  return tree;
}
