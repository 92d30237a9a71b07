import { copyFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { runDwb } from '../../support/cli';
import { resealBundle } from '../../support/reseal';
import { useSuiteTempDir, useTempDirs } from '../../support/temp';
import { nbformatValidator } from '../../unit/reports/nbformat-schema';
import { dwb, makeRunDirectory } from './run-fixture';

const suiteDir = useSuiteTempDir();
const tempDir = useTempDirs();
let runDir = '';
let database = '';

beforeAll(async () => {
  ({ runDir, database } = await makeRunDirectory(suiteDir()));
});

interface BundleShape {
  head: string;
  events: { event: { type: string; result?: { rows: unknown[][] } | null } }[];
  seal: { at: string; record: { type: string; name?: string } }[];
}

describe('dwb report and dwb verify', () => {
  it('exports every format from a dwb run folder, with the sign-off sealed into the bundle', async () => {
    const out = tempDir();
    const json = await dwb(['report', '--run', runDir, '--format', 'json', '--out', join(out, 'bundle.json'), '--signed-by', 'Ada Analyst', '--comment', 'Numbers checked against the ledger.']);
    expect(json.code).toBe(0);
    const bundle = JSON.parse(readFileSync(join(out, 'bundle.json'), 'utf8')) as BundleShape;
    expect(json.stdout.trim()).toBe(`wrote ${join(out, 'bundle.json')} (json, ${json.stdout.match(/\(json, ([^)]+)\)/)?.[1]}); integrity head ${bundle.head}`);
    expect(bundle.seal.map((entry) => entry.record.type)).toEqual(['bundle', 'sign-off']);
    expect(bundle.events[0]?.event).toMatchObject({ type: 'run-start', connection: { fingerprint: { fileBytes: expect.any(Number) } }, model: { name: 'scripted-model', temperature: 0.2 } });

    // Reports made from the bundle carry its head, so the PDF a manager gets pins the bundle.
    for (const format of ['html', 'md', 'ipynb'] as const) {
      const result = await dwb(['report', '--bundle', join(out, 'bundle.json'), '--format', format, '--out', join(out, `report.${format}`)]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(`integrity head ${bundle.head}`);
      expect(readFileSync(join(out, `report.${format}`), 'utf8')).toContain(bundle.head);
    }
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('Ada Analyst');
    expect(html).toContain('krakow is the largest feeder of baltic_sea');
    expect(html).not.toMatch(/<script|<img|href="javascript/i);
    expect(nbformatValidator()(JSON.parse(readFileSync(join(out, 'report.ipynb'), 'utf8')))).toEqual([]);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain('## 6. Step trace');

    const verify = await dwb(['verify', join(out, 'bundle.json')]);
    const fingerprint = /\((SHA256:[A-Za-z0-9+/]{43})\)/.exec(verify.stdout)?.[1] ?? 'no fingerprint';
    const signedAt = bundle.seal[1]?.at ?? '';
    const signedLines = `verified\nsigned by Ada Analyst (${fingerprint}): the seal\nsigned by Ada Analyst (${fingerprint}): sign-off (seal entry 1, ${signedAt})\n`;
    expect(verify).toEqual({ code: 0, stdout: signedLines, stderr: '' });
    expect((await dwb(['verify', '--head', bundle.head, join(out, 'bundle.json')])).stdout).toBe(signedLines);
    expect(html).toContain(fingerprint);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain(`key \`${fingerprint}\``);
  });

  it('names the first tampered event, and catches a removed sign-off', async () => {
    const out = tempDir();
    await dwb(['report', '--run', runDir, '--format', 'json', '--out', join(out, 'bundle.json'), '--signed-by', 'Ada Analyst']);
    const text = readFileSync(join(out, 'bundle.json'), 'utf8');
    const bundle = JSON.parse(text) as BundleShape;
    const index = bundle.events.findIndex((entry) => entry.event.type === 'query-end');
    const rows = bundle.events[index]?.event.result?.rows as unknown[][];
    (rows[0] as unknown[])[1] = 999;
    writeFileSync(join(out, 'tampered.json'), JSON.stringify(bundle, null, 2));
    const tampered = await dwb(['verify', join(out, 'tampered.json')]);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toBe(`not verified: event ${index} (query-end): its content does not match its hash (it was changed after it was logged)\n`);

    const unsigned = JSON.parse(text) as BundleShape;
    unsigned.seal.pop();
    writeFileSync(join(out, 'unsigned.json'), JSON.stringify(unsigned));
    const removed = await dwb(['verify', join(out, 'unsigned.json')]);
    expect(removed.code).toBe(1);
    expect(removed.stdout).toMatch(/^not verified: bundle: its head [0-9a-f]{64} is not the hash of its last seal entry/);

    writeFileSync(join(out, 'cut.json'), text.slice(0, text.length / 2));
    expect((await dwb(['verify', join(out, 'cut.json')])).stdout).toMatch(/^not verified: bundle: not valid JSON/);
    const refused = await dwb(['report', '--bundle', join(out, 'tampered.json'), '--format', 'html', '--out', join(out, 'x.html')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toBe(`dwb report: invalid-request: The bundle does not verify: event ${index} (query-end): its content does not match its hash (it was changed after it was logged)`);
  });

  it('refuses a signed bundle with a decision put before the signed one under the same key, in dwb verify and dwb report --bundle', async () => {
    const out = tempDir();
    await dwb(['report', '--run', runDir, '--format', 'json', '--out', join(out, 'bundle.json'), '--signed-by', 'Ada Analyst']);
    const text = readFileSync(join(out, 'bundle.json'), 'utf8');
    expect((await dwb(['verify', join(out, 'bundle.json')])).code).toBe(0);
    const at = text.indexOf('"type": "decision"');
    expect(at).toBeGreaterThan(0);
    // JSON.parse keeps the last "decision": the signed one; grep and other readers see the first.
    const forged = `${text.slice(0, at)}"decision":"Decide NOT",${text.slice(at)}`;
    writeFileSync(join(out, 'forged.json'), forged);
    const line = forged.slice(0, forged.indexOf('"decision":', at + 30)).split('\n').length;
    const verified = await dwb(['verify', join(out, 'forged.json')]);
    expect(verified.code).toBe(1);
    expect(verified.stdout).toMatch(
      new RegExp(`^not verified: bundle: written in a way JSON\\.stringify never writes, so it was edited by hand: the key "decision" appears twice in the object at events\\[\\d+\\]\\.event; JSON\\.parse would keep the last value, another reader the first \\(line ${line}, column \\d+, offset \\d+\\)\n$`),
    );
    const reported = await dwb(['report', '--bundle', join(out, 'forged.json'), '--format', 'html', '--out', join(out, 'x.html')]);
    expect(reported.code).toBe(2);
    expect(reported.stderr).toContain('dwb report: invalid-request: The bundle does not verify: bundle: written in a way JSON.stringify never writes, so it was edited by hand: the key "decision" appears twice');
  });

  it('replays the recorded queries and lists a result whose rows changed since', async () => {
    const out = tempDir();
    await dwb(['report', '--run', runDir, '--format', 'json', '--out', join(out, 'bundle.json')]);
    const same = await dwb(['verify', '--replay', join(out, 'bundle.json'), '--connection', `sqlite:${database}`]);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout.split('\n')[0]).toBe('verified');
    expect(same.stdout).toMatch(/^unchanged +q2 \(step 3\): \d+ rows, sha256 [0-9a-f]{12}…$/m);
    expect(same.stdout).toMatch(/^file +unchanged/m);
    expect(same.stdout.trim().split('\n').at(-1)).toBe('no drift: all 3 recorded results are unchanged');

    const drifted = join(out, 'drifted.sqlite');
    copyFileSync(database, drifted);
    const writable = new Database(drifted);
    writable.prepare("UPDATE flow SET flow = flow + 1 WHERE rowid = (SELECT rowid FROM flow ORDER BY source, dest LIMIT 1 OFFSET 4)").run();
    writable.close();
    const drift = await dwb(['verify', '--replay', join(out, 'bundle.json'), '--connection', `sqlite:${drifted}`]);
    expect(drift.code).toBe(1);
    expect(drift.stdout).toMatch(/^changed +q2 \(step 3\): \d+ rows; row 5 was .+, is .+ now$/m);
    expect(drift.stdout).toMatch(/^unchanged +q1 /m);
    expect(drift.stdout).toMatch(/^file +changed \(sha256 [0-9a-f]{12}… then, [0-9a-f]{12}… now\)$/m);
    expect(drift.stdout.trim().split('\n').at(-1)).toBe('drift: 1 of 3 recorded results changed since the run');
  });

  it('signs with the analyst key, rejects a re-sealed bundle on its signature, and says who signed and whom it does not trust', async () => {
    const out = tempDir();
    const config = process.env['DWB_CONFIG_DIR'] as string;
    const shown = await dwb(['keys', 'show']);
    const fingerprint = /^Ada Analyst \((SHA256:[A-Za-z0-9+/]{43})\); private key in (.+)$/.exec(shown.stdout.trim());
    expect(fingerprint, shown.stdout + shown.stderr).not.toBeNull();
    const [, keyFingerprint, privatePath] = fingerprint as RegExpExecArray;
    expect(privatePath).toBe(join(config, 'keys', 'analyst-key.pem'));
    expect(statSync(privatePath as string).mode & 0o777).toBe(0o600);
    expect((await dwb(['keys', 'create', '--name', 'Ada Analyst'])).stderr).toContain('There already is a signing key');

    await dwb(['report', '--run', runDir, '--format', 'json', '--out', join(out, 'bundle.json'), '--signed-by', 'Ada Analyst']);
    const text = readFileSync(join(out, 'bundle.json'), 'utf8');
    const privateBody = readFileSync(privatePath as string, 'utf8').split('\n')[1] as string;
    expect(text).not.toContain(privateBody);
    expect(text).toContain(keyFingerprint);

    // Edit a result and recompute every hash: the chain checks out, the signature does not.
    const edited = JSON.parse(text) as BundleShape & Record<string, unknown>;
    const index = edited.events.findIndex((entry) => entry.event.type === 'query-end');
    ((edited.events[index]?.event.result?.rows as unknown[][])[0] as unknown[])[1] = 999;
    writeFileSync(join(out, 'resealed.json'), JSON.stringify(resealBundle(edited, 'keep'), null, 2));
    const resealed = await dwb(['verify', join(out, 'resealed.json')]);
    expect(resealed).toEqual({ code: 1, stdout: `not verified: seal entry 0 (bundle): its signature by ${keyFingerprint} does not match: the bundle was changed and re-sealed after that key signed it\n`, stderr: '' });

    // Stripped of its signatures (every hash recomputed): refused as unsigned; accepted, as
    // unsigned, only when the user asks for it with --allow-unsigned.
    writeFileSync(join(out, 'stripped.json'), JSON.stringify(resealBundle(edited, 'strip')));
    const stripped = await dwb(['verify', join(out, 'stripped.json')]);
    expect(stripped.code).toBe(1);
    expect(stripped.stdout).toMatch(/^not verified: the hashes hold, but the bundle is not signed, so anyone able to edit the file could have changed and re-sealed it \(dwb verify --allow-unsigned accepts/);
    expect(stripped.stdout).toMatch(/\nunsigned: the seal carries no signature, so anyone able to edit the file could have re-sealed it/);
    const allowed = await dwb(['verify', '--allow-unsigned', join(out, 'stripped.json')]);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toMatch(/^verified \(unsigned: the hashes hold, but nothing proves who made the bundle\)\nunsigned: the seal carries no signature/);

    // Cut back to its seal (the sign-off dropped, the head recomputed): still a bundle Ada once
    // signed, so only a head recorded elsewhere shows that a later sign-off existed.
    const cut = JSON.parse(text) as BundleShape & Record<string, unknown>;
    (cut as { seal: unknown[] }).seal.pop();
    writeFileSync(join(out, 'cut-back.json'), JSON.stringify(resealBundle(cut, 'keep')));
    expect((await dwb(['verify', join(out, 'cut-back.json')])).code).toBe(0);
    const pinned = await dwb(['verify', '--head', (JSON.parse(text) as { head: string }).head, join(out, 'cut-back.json')]);
    expect(pinned.code).toBe(1);
    expect(pinned.stdout).toMatch(/^not verified: bundle: its head [0-9a-f]{64} is not the expected/);

    // A colleague without the key: unknown until they trust the exported public key.
    const exported = await dwb(['keys', 'export', '--out', join(out, 'ada.pub.json')]);
    expect(exported.stdout.trim()).toBe(`wrote the public key of Ada Analyst (${keyFingerprint}) to ${join(out, 'ada.pub.json')}`);
    const colleague = { ...process.env, DWB_CONFIG_DIR: join(out, 'colleague') };
    const unknown = await runDwb(['verify', join(out, 'bundle.json')], { env: colleague });
    expect(unknown.code).toBe(1);
    expect(unknown.stdout.split('\n')[0]).toBe('not verified: the hashes hold, but a seal entry is signed by a key you do not trust (see below)');
    expect(unknown.stdout.split('\n')[1]).toBe(`not trusted: the seal is signed as "Ada Analyst" by key ${keyFingerprint}, which is not among the trusted keys (if it is theirs, add their public key with --trusted-keys)`);
    const known = await runDwb(['verify', '--trusted-keys', join(out, 'ada.pub.json'), join(out, 'bundle.json')], { env: colleague });
    expect(known.code, known.stdout).toBe(0);
    expect(known.stdout.split('\n')[1]).toBe(`signed by Ada Analyst (${keyFingerprint}): the seal`);

    // A forger's own key under Ada's name is not Ada's key.
    const forger = join(out, 'forger');
    expect((await runDwb(['keys', 'create', '--name', 'Ada Analyst'], { env: { ...process.env, DWB_CONFIG_DIR: forger } })).code).toBe(0);
    const forged = await runDwb(['report', '--run', runDir, '--format', 'json', '--out', join(out, 'forged.json'), '--signed-by', 'Ada Analyst'], { env: { ...process.env, DWB_CONFIG_DIR: forger } });
    expect(forged.code, forged.stderr).toBe(0);
    const forgedVerdict = await dwb(['verify', join(out, 'forged.json')]);
    expect(forgedVerdict.code).toBe(1);
    expect(forgedVerdict.stdout).toMatch(/^not verified: the hashes hold, but a seal entry is signed by a key you do not trust \(see below\)\nnot trusted: the seal is signed as "Ada Analyst" by key SHA256:\S+, which is not among the trusted keys/);

    // Sign-offs take the key's name only, and a sign-off needs a key.
    const otherName = await dwb(['report', '--run', runDir, '--format', 'json', '--out', join(out, 'x.json'), '--signed-by', 'Grace Manager']);
    expect(otherName.code).toBe(2);
    expect(otherName.stderr.trim()).toBe(`dwb report: invalid-request: The signing key ${keyFingerprint} is registered to "Ada Analyst": a sign-off with it must be in that name, not "Grace Manager"`);
    const keyless = await runDwb(['report', '--run', runDir, '--format', 'json', '--out', join(out, 'y.json'), '--signed-by', 'Ada Analyst'], { env: colleague });
    expect(keyless.stderr).toContain('A sign-off is signed with the analyst’s key, and there is none: create one with `dwb keys create --name NAME`');

    // A bundle that only gained a byte-order mark still verifies.
    writeFileSync(join(out, 'bom.json'), `\uFEFF${text}`);
    expect((await dwb(['verify', join(out, 'bom.json')])).stdout).toMatch(/^verified\nsigned by Ada Analyst/);
  });

  it('explains bad arguments', async () => {
    expect((await dwb(['report', '--run', runDir, '--format', 'docx', '--out', '/tmp/x'])).stderr).toContain('--format must be one of html, pdf, md, json, ipynb, got "docx"');
    expect((await dwb(['verify'])).code).toBe(2);
    expect((await dwb(['verify', '--replay', 'b.json'])).stderr).toContain('--replay needs --connection URI');
  });
});
