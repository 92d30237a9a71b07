import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src-main/audit/canonical-json';
import { signerFromPem } from '../../src-main/audit/signing';
import { serializeBundle } from '../../src-main/reports/create-bundle';
import { assessSignatures, type TrustedKey } from '../../src-main/reports/bundle-signatures';
import { describeFailure, verifyBundleText } from '../../src-main/reports/verify-bundle';
import { resealBundle, type SignatureHandling } from '../support/reseal';
import { analystSigner, otherKeyPem, sampleBundle } from '../unit/reports/bundle-fixture';

/**
 * Tampering with a signed report bundle, as property tests. Without re-sealing, any flip,
 * deletion, insertion or reordering anywhere must break the hash chain. With re-sealing —
 * every hash recomputed after the edit, as anyone who reads docs/reports.md can — the chain
 * holds, and the signatures must catch it: kept, they no longer match; stripped, the bundle is
 * unsigned (refused unless `--allow-unsigned`); re-made with the forger's own key under the
 * analyst's name, the key is not a trusted one. "Accepted" is what `dwb verify` accepts by
 * default: every hash and signature holds and every key is trusted.
 */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = (string | number)[];

const trusted: TrustedKey[] = [{ name: analystSigner.name, fingerprint: analystSigner.fingerprint, source: 'test' }];
const original = JSON.parse(serializeBundle(sampleBundle())) as { [key: string]: Json };
const forger = signerFromPem(analystSigner.name, otherKeyPem);

function paths(value: Json, prefix: Path = []): { path: Path; value: Json }[] {
  const children: [string | number, Json][] = Array.isArray(value) ? value.map((child, index) => [index, child]) : value !== null && typeof value === 'object' ? Object.entries(value) : [];
  return children.flatMap(([key, child]) => [{ path: [...prefix, key], value: child }, ...paths(child, [...prefix, key])]);
}
const allPaths = paths(original);
const leaves = allPaths.filter(({ value }) => value === null || typeof value !== 'object');
const objects = [{ path: [] as Path, value: original as Json }, ...allPaths.filter(({ value }) => value !== null && typeof value === 'object' && !Array.isArray(value))];
const arrays = allPaths.filter(({ value }) => Array.isArray(value) && value.length >= 2);
/** What a forger edits before re-sealing: the run's content and the seal's records, not the hashes re-sealing recomputes. */
const contentLeaves = leaves.filter(({ path }) => {
  const [top, , field, sub] = path;
  if (top === 'events') return field === 'event' || field === 'at';
  if (top === 'transcript' || top === 'notebook') return true;
  if (top === 'seal') return (field === 'record' && !['transcript', 'notebook', 'eventCount'].includes(String(sub))) || field === 'at';
  return false;
});

function parentOf(tree: Json, path: Path): Record<string | number, Json> & Json[] {
  return path.slice(0, -1).reduce<Json>((node, key) => (node as Record<string | number, Json>)[key] as Json, tree) as Record<string | number, Json> & Json[];
}

function flipped(value: Json, seed: number): Json {
  if (typeof value === 'string') {
    if (value === '') return 'x';
    const at = seed % value.length;
    return value.slice(0, at) + String.fromCharCode(value.charCodeAt(at) ^ (1 + (seed % 7))) + value.slice(at + 1);
  }
  if (typeof value === 'number') return value + 1 + (seed % 5);
  if (typeof value === 'boolean') return !value;
  return seed % 2 ? 0 : 'x';
}

type Tampering = { kind: 'flip' | 'delete' | 'insert'; path: Path } | { kind: 'reorder'; path: Path; other: number };

function tamper(tampering: Tampering, seed: number): { [key: string]: Json } {
  const tree = structuredClone(original);
  const key = tampering.path.at(-1) as string | number;
  switch (tampering.kind) {
    case 'flip': {
      const parent = parentOf(tree, tampering.path);
      parent[key] = flipped(parent[key] as Json, seed);
      break;
    }
    case 'delete': {
      const parent = parentOf(tree, tampering.path);
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key];
      break;
    }
    case 'insert': {
      const target = tampering.path.length ? (parentOf(tree, tampering.path)[key] as Record<string, Json>) : (tree as Record<string, Json>);
      target['tampered'] = seed;
      break;
    }
    case 'reorder': {
      const list = parentOf(tree, tampering.path)[key] as Json[];
      [list[0], list[tampering.other]] = [list[tampering.other] as Json, list[0] as Json];
      break;
    }
  }
  return tree;
}

const anyTampering: fc.Arbitrary<Tampering> = fc.oneof(
  fc.nat({ max: leaves.length - 1 }).map((index): Tampering => ({ kind: 'flip', path: (leaves[index] as { path: Path }).path })),
  fc.nat({ max: allPaths.length - 1 }).map((index): Tampering => ({ kind: 'delete', path: (allPaths[index] as { path: Path }).path })),
  fc.nat({ max: objects.length - 1 }).map((index): Tampering => ({ kind: 'insert', path: (objects[index] as { path: Path }).path })),
  fc.tuple(fc.nat({ max: arrays.length - 1 }), fc.nat()).map(([index, other]): Tampering => {
    const { path, value } = arrays[index] as { path: Path; value: Json[] };
    return { kind: 'reorder', path, other: 1 + (other % (value.length - 1)) };
  }),
);

/** Why `dwb verify` (without --allow-unsigned) would refuse the bundle, or null when it would accept it. */
function refusal(tree: unknown): string | null {
  const verdict = verifyBundleText(JSON.stringify(tree));
  if (!verdict.ok) return `not verified: ${describeFailure(verdict.failure)}`;
  const judged = assessSignatures(verdict.bundle, trusted).filter((entry) => entry.status !== 'trusted');
  return judged.length ? `${judged[0]?.status}` : null;
}

const figures = {
  plain: { tried: 0, caught: 0 },
  resealed: { tried: 0, caught: 0, bySignature: 0, unsigned: 0, untrustedKey: 0, otherCheck: 0 },
  twoReadings: { tried: 0, caught: 0 },
};

afterAll(() => {
  const { plain, resealed } = figures;
  console.log(`tampering: ${plain.tried} without re-seal caught ${plain.caught}; ${resealed.tried} re-sealed caught ${resealed.caught}`);
  console.log(`  re-sealed, caught by: signature mismatch ${resealed.bySignature}, unsigned ${resealed.unsigned}, untrusted key ${resealed.untrustedKey}, another check (malformed record) ${resealed.otherCheck}`);
  console.log(`  text that JSON.parse reads as the signed bundle but another reader may not (duplicate keys, escapes, numbers): ${figures.twoReadings.tried} tried, caught ${figures.twoReadings.caught}`);
});

/**
 * The bundle written out as JSON.stringify would, except at `path`: a duplicate of its key with
 * `fake` just before the real one (JSON.parse keeps the last, so every hash and signature still
 * holds), or its value in another spelling (`respell`) that JSON.parse reads as the same value.
 */
function textWith(tree: Json, path: Path, change: { duplicate: Json } | { respell: (written: string) => string }, at: Path = []): string {
  const here = at.length === path.length && at.every((part, index) => part === path[index]);
  if (here && 'respell' in change) return change.respell(JSON.stringify(tree));
  if (Array.isArray(tree)) return `[${tree.map((child, index) => textWith(child, path, change, [...at, index])).join(',')}]`;
  if (tree === null || typeof tree !== 'object') return JSON.stringify(tree);
  const parentHere = at.length === path.length - 1 && at.every((part, index) => part === path[index]);
  const members = Object.entries(tree).map(([key, child]) => {
    const member = `${JSON.stringify(key)}:${textWith(child, path, change, [...at, key])}`;
    return parentHere && key === path.at(-1) && 'duplicate' in change ? `${JSON.stringify(key)}:${JSON.stringify(change.duplicate)},${member}` : member;
  });
  return `{${members.join(',')}}`;
}

/** Spellings JSON.parse reads as the same value but canonical JSON never writes. */
function respellings(value: Json): ((written: string) => string)[] {
  if (typeof value === 'number') return [(written) => (Number.isInteger(value) ? `${written}.0` : `${written}0`), (written) => `${written}e0`];
  if (typeof value === 'string' && value.length > 0) {
    return [
      // The first character as a \u escape: grep for the value no longer finds it.
      (written) => `"\\u${(written.codePointAt(1) as number).toString(16).padStart(4, '0')}${written.slice(written.codePointAt(1) as number > 0xffff ? 3 : 2)}`,
      (written) => written.replaceAll('/', '\\/'),
    ];
  }
  return [];
}

describe('tampering with a signed report bundle', () => {
  it('the untouched signed bundle is accepted, and re-sealing it untouched with its own signatures changes nothing', () => {
    expect(refusal(original)).toBeNull();
    expect(canonicalJson(resealBundle(original, 'keep'))).toBe(canonicalJson(original));
  });

  it('without re-sealing: every flip, deletion, insertion or reordering breaks the chain or a signature', () => {
    fc.assert(
      fc.property(anyTampering, fc.nat(), (change, seed) => {
        const tampered = tamper(change, seed);
        fc.pre(canonicalJson(tampered) !== canonicalJson(original));
        figures.plain.tried++;
        const verdict = verifyBundleText(JSON.stringify(tampered, null, 2));
        if (verdict.ok) throw new Error(`undetected ${change.kind} at ${change.path.join('.')}`);
        figures.plain.caught++;
      }),
      { numRuns: 800 },
    );
    expect(figures.plain.tried).toBeGreaterThanOrEqual(500);
    expect(figures.plain.caught).toBe(figures.plain.tried);
  });

  it('with every hash recomputed: kept signatures mismatch, stripped ones leave it unsigned, a forger’s key is untrusted', () => {
    const handling = fc.constantFrom<SignatureHandling>('keep', 'strip', { resign: forger });
    fc.assert(
      fc.property(fc.nat({ max: contentLeaves.length - 1 }), fc.nat(), handling, (index, seed, signatures) => {
        const { path } = contentLeaves[index] as { path: Path };
        const tampered = tamper({ kind: 'flip', path }, seed);
        const resealed = resealBundle(tampered, signatures);
        fc.pre(canonicalJson(tampered) !== canonicalJson(original));
        figures.resealed.tried++;
        const why = refusal(resealed);
        if (why === null) throw new Error(`re-sealed edit at ${path.join('.')} (${typeof signatures === 'string' ? signatures : 'resigned'}) accepted`);
        figures.resealed.caught++;
        if (/signature/.test(why)) figures.resealed.bySignature++;
        else if (why === 'unsigned') figures.resealed.unsigned++;
        else if (why === 'unknown-key' || why === 'name-mismatch') figures.resealed.untrustedKey++;
        else figures.resealed.otherCheck++;
        if (signatures === 'keep') expect(why, path.join('.')).toMatch(/signature|not verified/);
      }),
      { numRuns: 900 },
    );
    expect(figures.resealed.tried).toBeGreaterThanOrEqual(500);
    expect(figures.resealed.caught).toBe(figures.resealed.tried);
  });

  it('a duplicated key, such as "decision":"Decide NOT" before the signed decision, is refused with the key and its place, signed, re-sealed or re-signed', () => {
    // The reproducer: the signed bundle with a decision nobody signed put before the real one.
    const signedText = serializeBundle(sampleBundle());
    const forged = signedText.replace('"decision": "krakow <img', '"decision":"Decide NOT",\n      "decision": "krakow <img');
    expect(forged).not.toBe(signedText);
    expect(canonicalJson(JSON.parse(forged))).toBe(canonicalJson(original));
    const verdict = verifyBundleText(forged);
    expect(verdict.ok).toBe(false);
    expect(verdict.ok ? null : describeFailure(verdict.failure)).toMatch(
      /^bundle: written in a way JSON\.stringify never writes, so it was edited by hand: the key "decision" appears twice in the object at events\[\d+\]\.event; JSON\.parse would keep the last value, another reader the first \(line \d+, column \d+, offset \d+\)$/,
    );

    const keyed = allPaths.filter(({ path }) => typeof path.at(-1) === 'string');
    const handling = fc.constantFrom<SignatureHandling | 'as signed'>('as signed', 'keep', 'strip', { resign: forger });
    fc.assert(
      fc.property(fc.nat({ max: keyed.length - 1 }), fc.nat(), handling, (index, seed, signatures) => {
        const { path, value } = keyed[index] as { path: Path; value: Json };
        const tree = signatures === 'as signed' ? original : (resealBundle(original, signatures) as { [key: string]: Json });
        const text = textWith(tree, path, { duplicate: flipped(value, seed) });
        // Stripping signatures removes some keys (signer, fingerprint): nothing to duplicate then.
        fc.pre(text !== JSON.stringify(tree));
        // What JSON.parse sees is the bundle as it was: only a strict reader tells.
        expect(canonicalJson(JSON.parse(text))).toBe(canonicalJson(tree));
        figures.twoReadings.tried++;
        const result = verifyBundleText(text);
        if (result.ok) throw new Error(`duplicate key at ${path.join('.')} accepted`);
        expect(describeFailure(result.failure)).toContain(`the key ${JSON.stringify(path.at(-1))} appears twice`);
        figures.twoReadings.caught++;
      }),
      { numRuns: 400 },
    );
  });

  it('a value respelled (a character as \\u escape, \\/, 1 as 1.0 or 1e0) reads the same to JSON.parse and is refused', () => {
    const respellable = allPaths.flatMap(({ path, value }) => respellings(value).map((respell) => ({ path, respell })));
    fc.assert(
      fc.property(fc.nat({ max: respellable.length - 1 }), (index) => {
        const { path, respell } = respellable[index] as { path: Path; respell: (written: string) => string };
        const text = textWith(original, path, { respell });
        fc.pre(text !== JSON.stringify(original));
        expect(canonicalJson(JSON.parse(text))).toBe(canonicalJson(original));
        figures.twoReadings.tried++;
        const result = verifyBundleText(text);
        if (result.ok) throw new Error(`respelled value at ${path.join('.')} accepted`);
        expect(describeFailure(result.failure)).toMatch(/^bundle: written in a way JSON\.stringify never writes, so it was edited by hand: the (escape|number) /);
        figures.twoReadings.caught++;
      }),
      { numRuns: 300 },
    );
  });
});
