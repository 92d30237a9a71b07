import type { ReportBundle } from './bundle-format';

/** A public key the verifier trusts, and the analyst name registered with it. */
export interface TrustedKey {
  name: string;
  fingerprint: string;
  /** Where it came from (a file, or "your own key"), for messages. */
  source: string;
}

/** One seal entry's signature as judged against the trusted keys. */
export interface EntryTrust {
  entry: number;
  role: 'seal' | 'sign-off';
  /** The name the entry claims: the signer registered in the seal, or the sign-off's name. */
  name: string | null;
  fingerprint: string | null;
  at: string;
  status: 'trusted' | 'unsigned' | 'unknown-key' | 'name-mismatch';
  /** For a known key: the name registered with it. */
  registeredName: string | null;
}

/**
 * Who signed each seal entry of a verified bundle (whose signatures therefore match their
 * keys), and whether each key is a trusted one registered to the name the entry claims.
 */
export function assessSignatures(bundle: ReportBundle, trusted: readonly TrustedKey[]): EntryTrust[] {
  return bundle.seal.map((entry, index) => {
    const record = entry.record;
    const claim = record.type === 'bundle' ? { name: record.signer?.name ?? null, fingerprint: record.signer?.fingerprint ?? null } : { name: record.name, fingerprint: record.fingerprint ?? null };
    const known = claim.fingerprint === null ? undefined : trusted.find((key) => key.fingerprint === claim.fingerprint);
    const status: EntryTrust['status'] = claim.fingerprint === null ? 'unsigned' : !known ? 'unknown-key' : known.name !== claim.name ? 'name-mismatch' : 'trusted';
    return { entry: index, role: record.type === 'bundle' ? 'seal' : 'sign-off', ...claim, at: entry.at, status, registeredName: known?.name ?? null };
  });
}

/** One line per entry, e.g. `signed by Ada Analyst (SHA256:…): the seal`. */
export function describeEntryTrust(trust: EntryTrust): string {
  const what = trust.role === 'seal' ? 'the seal' : `sign-off (seal entry ${trust.entry}, ${trust.at})`;
  switch (trust.status) {
    case 'trusted':
      return `signed by ${trust.name ?? ''} (${trust.fingerprint ?? ''}): ${what}`;
    case 'unsigned':
      return trust.role === 'seal'
        ? 'unsigned: the seal carries no signature, so anyone able to edit the file could have re-sealed it (accepted only with --allow-unsigned; --head pins a head you recorded)'
        : `unsigned: ${what} by "${trust.name ?? ''}" carries no signature: the name is not proof of who signed`;
    case 'unknown-key':
      return `not trusted: ${what} is signed as "${trust.name ?? ''}" by key ${trust.fingerprint ?? ''}, which is not among the trusted keys (if it is theirs, add their public key with --trusted-keys)`;
    case 'name-mismatch':
      return `not trusted: ${what} is signed as "${trust.name ?? ''}" by key ${trust.fingerprint ?? ''}, which is registered to "${trust.registeredName ?? ''}"`;
  }
}
