import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src-main/audit/canonical-json';
import type { RunEvent } from '../../../src-main/contract/run';
import { serializeBundle } from '../../../src-main/reports/create-bundle';
import { bundleFromFile, bundleFromRun } from '../../../src-main/reports/prepare-bundle';
import { assessSignatures, describeEntryTrust } from '../../../src-main/reports/bundle-signatures';
import { describeFailure, verifyBundle, verifyBundleText, type IntegrityFailure } from '../../../src-main/reports/verify-bundle';
import { resealBundle } from '../../support/reseal';
import { signerFromPem } from '../../../src-main/audit/signing';
import { analystKeyPem, analystSigner, otherKeyPem, sampleBundle, sampleEvents, sampleMaterials } from './bundle-fixture';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = (string | number)[];
type Tampering = { kind: 'flip' | 'delete' | 'insert'; path: Path } | { kind: 'reorder'; path: Path; other: number };

const original = JSON.parse(serializeBundle(sampleBundle())) as Json;
const originalText = JSON.stringify(original, null, 2);

/** Every path to a value in the tree (the root excluded), with the value's kind. */
function paths(value: Json, prefix: Path = []): { path: Path; value: Json }[] {
  const children: [string | number, Json][] = Array.isArray(value) ? value.map((child, index) => [index, child]) : value !== null && typeof value === 'object' ? Object.entries(value) : [];
  return children.flatMap(([key, child]) => [{ path: [...prefix, key], value: child }, ...paths(child, [...prefix, key])]);
}
const allPaths = paths(original);
const leaves = allPaths.filter(({ value }) => value === null || typeof value !== 'object');
const objects = [{ path: [] as Path, value: original }, ...allPaths.filter(({ value }) => value !== null && typeof value === 'object' && !Array.isArray(value))];
const arrays = allPaths.filter(({ value }) => Array.isArray(value) && value.length >= 2);

function get(tree: Json, path: Path): Json {
  return path.reduce<Json>((node, key) => (node as Record<string | number, Json>)[key] as Json, tree);
}

function flipped(value: Json, seed: number): Json {
  if (typeof value === 'string') {
    if (value === '') return 'x';
    const at = seed % value.length;
    return value.slice(0, at) + String.fromCharCode(value.charCodeAt(at) ^ 1) + value.slice(at + 1);
  }
  if (typeof value === 'number') return value + 1;
  if (typeof value === 'boolean') return !value;
  return 0;
}

function tamper(tampering: Tampering, seed: number): Json {
  const tree = structuredClone(original);
  const key = tampering.path.at(-1) as string | number;
  const parent = get(tree, tampering.path.slice(0, -1)) as Record<string | number, Json> & Json[];
  switch (tampering.kind) {
    case 'flip':
      parent[key] = flipped(parent[key] as Json, seed);
      break;
    case 'delete':
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key];
      break;
    case 'insert':
      (get(tree, tampering.path) as Record<string, Json>)['tampered'] = seed;
      break;
    case 'reorder': {
      const list = get(tree, tampering.path) as Json[];
      const [a, b] = [list[0] as Json, list[tampering.other] as Json];
      list[0] = b;
      list[tampering.other] = a;
      break;
    }
  }
  return tree;
}

/** Where a tampering must be reported: the event, seal entry, transcript line or cell it touched. */
function expectedLocation(tampering: Tampering): Pick<IntegrityFailure, 'section' | 'index'> {
  const path = tampering.kind === 'reorder' ? [...tampering.path, 0] : tampering.kind === 'insert' ? [...tampering.path, 'tampered'] : tampering.path;
  const [top, second, third] = path;
  const deletesLast = (list: unknown[]): boolean => tampering.kind === 'delete' && path.length === 2 && second === list.length - 1;
  const bundle = original as { events: unknown[]; seal: unknown[] };
  if (path.length === 1) return { section: 'bundle', index: null };
  if (top === 'events') return deletesLast(bundle.events) ? { section: 'seal', index: 0 } : { section: 'event', index: second as number };
  if (top === 'seal') return deletesLast(bundle.seal) ? { section: 'bundle', index: null } : { section: 'seal', index: second as number };
  if (top === 'transcript') return { section: 'transcript', index: second as number };
  if (second === 'cells') return path.length === 2 ? { section: 'bundle', index: null } : { section: 'notebook', index: third as number };
  return { section: 'notebook', index: null };
}

const tampering: fc.Arbitrary<Tampering> = fc.oneof(
  fc.nat({ max: leaves.length - 1 }).map((index): Tampering => ({ kind: 'flip', path: (leaves[index] as { path: Path }).path })),
  fc.nat({ max: allPaths.length - 1 }).map((index): Tampering => ({ kind: 'delete', path: (allPaths[index] as { path: Path }).path })),
  fc.nat({ max: objects.length - 1 }).map((index): Tampering => ({ kind: 'insert', path: (objects[index] as { path: Path }).path })),
  fc
    .tuple(fc.nat({ max: arrays.length - 1 }), fc.nat())
    .map(([index, other]): Tampering => {
      const { path, value } = arrays[index] as { path: Path; value: Json[] };
      return { kind: 'reorder', path, other: 1 + (other % (value.length - 1)) };
    }),
);

describe('bundle verification', () => {
  it('verifies an untouched bundle, whatever its whitespace and key order', () => {
    expect(verifyBundleText(originalText).ok).toBe(true);
    const shuffled = (value: Json): Json =>
      Array.isArray(value) ? value.map(shuffled) : value !== null && typeof value === 'object' ? Object.fromEntries(Object.entries(value).reverse().map(([key, child]) => [key, shuffled(child)])) : value;
    expect(verifyBundleText(JSON.stringify(shuffled(original))).ok).toBe(true);
  });

  it('catches any flip, deletion, insertion or reordering and names the part that was touched', () => {
    fc.assert(
      fc.property(tampering, fc.nat(), (change, seed) => {
        const tampered = tamper(change, seed);
        fc.pre(canonicalJson(tampered) !== canonicalJson(original));
        const verdict = verifyBundleText(JSON.stringify(tampered, null, 2));
        if (verdict.ok) throw new Error(`undetected ${change.kind} at ${change.path.join('.')}`);
        expect({ section: verdict.failure.section, index: verdict.failure.index }, `${change.kind} at ${change.path.join('.')}: ${describeFailure(verdict.failure)}`).toEqual(expectedLocation(change));
      }),
      { numRuns: 1500 },
    );
  });

  it('verifies a bundle that only gained a UTF-8 byte-order mark, and nothing else', () => {
    expect(verifyBundleText(`\uFEFF${originalText}`).ok).toBe(true);
    expect(verifyBundleText(`\uFEFF\uFEFF${originalText}`).ok).toBe(false);
    const edited = verifyBundleText(`\uFEFF${originalText.replace('krakow', 'krakov')}`);
    expect(edited.ok ? 'verified' : describeFailure(edited.failure)).toMatch(/^event \d+ \(.*\): its content does not match its hash/);
  });

  it('catches a bundle cut short anywhere', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: originalText.trimEnd().length - 1 }), (length) => {
        const verdict = verifyBundleText(originalText.slice(0, length));
        expect(verdict.ok ? null : describeFailure(verdict.failure)).toMatch(/^bundle: not valid JSON/);
      }),
      { numRuns: 300 },
    );
  });

  it('verifies every bundle sealed from an intact run, of any content', () => {
    const text = fc.string({ unit: 'binary', maxLength: 24 });
    const value = fc.oneof(text, fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.boolean(), fc.constant(null));
    const event: fc.Arbitrary<RunEvent> = fc.oneof(
      fc.record({ type: fc.constant('thought' as const), step: fc.nat(), text }),
      fc.record({ type: fc.constant('plan' as const), step: fc.nat(), steps: fc.array(text, { minLength: 1, maxLength: 4 }) }),
      fc.record({ type: fc.constant('observation' as const), step: fc.nat(), queryId: fc.option(text), text }),
      fc.array(fc.array(value, { minLength: 2, maxLength: 2 }), { maxLength: 5 }).map((rows): RunEvent => ({
        type: 'query-end',
        step: 1,
        queryId: 'q',
        result: { columns: [{ name: 'a', type: '' }, { name: 'b', type: '' }], rows, rowCount: rows.length, truncated: false, elapsedMs: 1 },
        error: null,
        digest: null,
      })),
    );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 12 }), fc.option(fc.record({ name: text.filter((name) => name.trim() !== ''), comment: text })), (middle, signOff) => {
        const events = sampleEvents();
        const signer = signOff ? signerFromPem(signOff.name.trim(), analystKeyPem) : null;
        const bundle = bundleFromRun(sampleMaterials([...events.slice(0, -1), ...middle, events.at(-1) as RunEvent]), { at: '2026-01-02T10:00:00.000Z', signOff, generator: 'test', signer });
        const verdict = verifyBundleText(serializeBundle(bundle));
        expect(verdict.ok ? 'verified' : describeFailure(verdict.failure)).toBe('verified');
      }),
      { numRuns: 150 },
    );
  });

  it('names the first bad event by index, type and reason', () => {
    const tampered = structuredClone(original) as { events: { event: { text?: string } }[] };
    (tampered.events[6] as { event: { text: string } }).event.text = 'Nothing to see here.';
    const verdict = verifyBundleText(JSON.stringify(tampered));
    expect(verdict.ok ? '' : describeFailure(verdict.failure)).toBe('event 6 (thought): its content does not match its hash (it was changed after it was logged)');

    const cut = structuredClone(original) as { events: unknown[] };
    cut.events.pop();
    const cutVerdict = verifyBundleText(JSON.stringify(cut));
    expect(cutVerdict.ok ? '' : describeFailure(cutVerdict.failure)).toBe(`seal entry 0 (bundle): it seals ${cut.events.length + 1} run events but the bundle has ${cut.events.length}: events were removed or added after it was sealed`);
  });

  it('covers the sign-off: editing, removing or forging it is caught', () => {
    const bundle = original as { seal: { record: { comment: string } }[]; head: string };
    const edited = structuredClone(bundle);
    (edited.seal[1] as { record: { comment: string } }).record.comment = 'Approved without reservation.';
    const verdict = verifyBundleText(JSON.stringify(edited));
    expect(verdict.ok ? '' : describeFailure(verdict.failure)).toBe('seal entry 1 (sign-off): its content does not match its hash (it was changed after it was sealed)');

    const removed = structuredClone(bundle);
    removed.seal.pop();
    expect(verifyBundleText(JSON.stringify(removed)).ok).toBe(false);

    // Re-sealing a changed bundle properly yields another head: pinning the head catches it.
    const unsigned = bundleFromRun(sampleMaterials(), { at: '2026-01-02T10:00:00.000Z', signOff: null, generator: 'Decision Workbench test' });
    const verdictPinned = verifyBundleText(serializeBundle(unsigned), { expectedHead: bundle.head });
    expect(verdictPinned.ok ? '' : describeFailure(verdictPinned.failure)).toMatch(/^bundle: its head [0-9a-f]{64} is not the expected/);
    expect(verifyBundleText(originalText, { expectedHead: bundle.head }).ok).toBe(true);
  });

  it('adds a sign-off to a verified bundle, chained after the last one', () => {
    const signed = bundleFromFile(originalText, { at: '2026-01-03T08:00:00.000Z', signOff: { name: 'Grace Manager', comment: 'Go ahead.' }, signer: signerFromPem('Grace Manager', otherKeyPem) });
    expect(signed.seal.map((entry) => entry.record.type)).toEqual(['bundle', 'sign-off', 'sign-off']);
    expect(verifyBundleText(serializeBundle(signed)).ok).toBe(true);
    expect(() => bundleFromFile(originalText.replace('krakow', 'krakov'), { at: '2026-01-03T08:00:00.000Z' })).toThrow(/^The bundle does not verify: event \d+ \(/);
  });

  it('signs the seal and each sign-off: an edit re-sealed with every hash recomputed fails on the signature', () => {
    const trusted = [{ name: 'Ada Analyst', fingerprint: analystSigner.fingerprint, source: 'test' }];
    const verdict = verifyBundleText(originalText);
    expect(verdict.ok && assessSignatures(verdict.bundle, trusted).map(describeEntryTrust)).toEqual([
      `signed by Ada Analyst (${analystSigner.fingerprint}): the seal`,
      `signed by Ada Analyst (${analystSigner.fingerprint}): sign-off (seal entry 1, 2026-01-02T10:00:00.000Z)`,
    ]);

    const edited = structuredClone(original) as { events: { event: { text?: string } }[] } & Record<string, unknown>;
    (edited.events[6] as { event: { text: string } }).event.text = 'Nothing to see here.';
    const kept = verifyBundle(resealBundle(edited, 'keep'));
    expect(kept.ok ? 'verified' : describeFailure(kept.failure)).toBe(`seal entry 0 (bundle): its signature by ${analystSigner.fingerprint} does not match: the bundle was changed and re-sealed after that key signed it`);

    // Stripped of its signatures it verifies, but only as unsigned; signed by another key under the same name, it is not trusted.
    const stripped = verifyBundle(resealBundle(edited, 'strip'));
    expect(stripped.ok && assessSignatures(stripped.bundle, trusted).map((entry) => entry.status)).toEqual(['unsigned', 'unsigned']);
    const forged = verifyBundle(resealBundle(edited, { resign: signerFromPem('Ada Analyst', otherKeyPem) }));
    expect(forged.ok && assessSignatures(forged.bundle, trusted).map(describeEntryTrust)[0]).toMatch(/^not trusted: the seal is signed as "Ada Analyst" by key SHA256:\S+, which is not among the trusted keys/);
    // A sign-off in another name than the one registered with its key is not trusted either.
    const renamedSignOff = structuredClone(original) as { seal: { record: { name?: string } }[] } & Record<string, unknown>;
    (renamedSignOff.seal[1] as { record: { name: string } }).record.name = 'Grace Manager';
    const renamed = verifyBundle(resealBundle(renamedSignOff, { resign: analystSigner }));
    expect(renamed.ok && assessSignatures(renamed.bundle, trusted).map(describeEntryTrust)[1]).toBe(
      `not trusted: sign-off (seal entry 1, 2026-01-02T10:00:00.000Z) is signed as "Grace Manager" by key ${analystSigner.fingerprint}, which is registered to "Ada Analyst"`,
    );

    const removed = structuredClone(original) as { seal: { signature?: unknown }[] };
    delete (removed.seal[1] as { signature?: unknown }).signature;
    const removedVerdict = verifyBundleText(JSON.stringify(removed));
    expect(removedVerdict.ok ? '' : describeFailure(removedVerdict.failure)).toBe(`seal entry 1 (sign-off): it declares a signature by ${analystSigner.fingerprint} but carries none (the signature was removed)`);
  });

  it('refuses a sign-off without a key or in a name other than the key’s', () => {
    expect(() => sampleBundle({ name: 'Ada Analyst', comment: '' }, null)).toThrow('A sign-off is signed with the analyst’s key, and there is none: create one with `dwb keys create --name NAME`');
    expect(() => sampleBundle({ name: 'Grace Manager', comment: '' })).toThrow(`The signing key ${analystSigner.fingerprint} is registered to "Ada Analyst": a sign-off with it must be in that name, not "Grace Manager"`);
  });

  it('still verifies a version 1 bundle from before signatures, as unsigned', () => {
    const unsigned = JSON.parse(serializeBundle(sampleBundle(null, null))) as { version: number; seal: { record: { version: number } }[] } & Record<string, unknown>;
    unsigned.version = 1;
    (unsigned.seal[0] as { record: { version: number } }).record.version = 1;
    const verdict = verifyBundle(resealBundle(unsigned, 'keep'));
    expect(verdict.ok ? verdict.bundle.version : describeFailure(verdict.failure)).toBe(1);
    expect(verdict.ok && assessSignatures(verdict.bundle, []).map(describeEntryTrust)).toEqual([
      'unsigned: the seal carries no signature, so anyone able to edit the file could have re-sealed it (accepted only with --allow-unsigned; --head pins a head you recorded)',
    ]);
  });

  it('refuses to seal a run log that is already broken', () => {
    const materials = sampleMaterials();
    const events = materials.events as { event: { type: string; text?: string } }[];
    (events[6] as { event: { text: string } }).event.text = 'edited';
    expect(() => bundleFromRun(materials, { at: '2026-01-02T10:00:00.000Z' })).toThrow('The run log is broken at event 6 (thought): its content does not match its hash');
  });
});
