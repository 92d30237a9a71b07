import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';

/**
 * Ed25519 signatures over seal entries. A seal entry's hash already covers everything before it
 * (the run log, the transcript and notebook hashes, earlier sign-offs), so signing that one hash
 * signs the whole bundle up to that entry. Recomputing the hashes after an edit is easy; making
 * a signature that checks under the analyst's public key without their private key is not.
 */

/** What a signature covers: a fixed label, so a signature made here means nothing elsewhere, and the entry's hash. */
function signedMessage(entryHash: string): Buffer {
  return Buffer.from(`decision-workbench/seal-signature/v1\n${entryHash}`, 'utf8');
}

/** A public key as carried in a bundle: the DER SubjectPublicKeyInfo, base64. */
export function encodePublicKey(key: KeyObject): string {
  return key.export({ type: 'spki', format: 'der' }).toString('base64');
}

/** `SHA256:` and the unpadded base64 of the sha256 of the DER public key, as OpenSSH shows keys. */
export function keyFingerprint(publicKeyBase64: string): string {
  return `SHA256:${createHash('sha256').update(Buffer.from(publicKeyBase64, 'base64')).digest('base64').replace(/=+$/, '')}`;
}

/**
 * Bytes from base64 written exactly as Node writes it, or null. Node's decoder skips characters
 * that are not base64 and ignores stray bits, so two different texts could decode to the same
 * key or signature; only the canonical text of the bytes is accepted.
 */
export function canonicalBase64(text: string): Buffer | null {
  const bytes = Buffer.from(text, 'base64');
  return bytes.length > 0 && bytes.toString('base64') === text ? bytes : null;
}

/** The Ed25519 public key in a bundle's base64 DER, or null when it is not one. */
export function decodePublicKey(publicKeyBase64: string): KeyObject | null {
  const der = canonicalBase64(publicKeyBase64);
  if (!der) return null;
  try {
    const key = createPublicKey({ key: der, format: 'der', type: 'spki' });
    return key.asymmetricKeyType === 'ed25519' ? key : null;
  } catch {
    return null;
  }
}

/** An analyst's key, able to sign: their name as registered with the key, and the key itself. */
export interface Signer {
  readonly name: string;
  readonly fingerprint: string;
  /** base64 DER, as a bundle carries it. */
  readonly publicKey: string;
  /** The base64 Ed25519 signature of a seal entry's hash. */
  signHash(entryHash: string): string;
}

export function newPrivateKeyPem(): string {
  return generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** A signer from a PKCS#8 PEM Ed25519 private key and the analyst name registered with it. */
export function signerFromPem(name: string, privateKeyPem: string): Signer {
  const privateKey = createPrivateKey({ key: privateKeyPem, format: 'pem' });
  if (privateKey.asymmetricKeyType !== 'ed25519') throw new Error(`the signing key is ${privateKey.asymmetricKeyType ?? 'of an unknown type'}, not Ed25519`);
  const publicKey = encodePublicKey(createPublicKey(privateKey));
  return {
    name,
    fingerprint: keyFingerprint(publicKey),
    publicKey,
    signHash: (entryHash) => sign(null, signedMessage(entryHash), privateKey).toString('base64'),
  };
}

/** True when `signature` is the key's signature of the entry hash. */
export function signatureMatches(publicKeyBase64: string, entryHash: string, signature: string): boolean {
  const key = decodePublicKey(publicKeyBase64);
  const bytes = canonicalBase64(signature);
  if (!key || !bytes) return false;
  try {
    return verify(null, signedMessage(entryHash), key, bytes);
  } catch {
    return false;
  }
}
