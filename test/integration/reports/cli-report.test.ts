import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
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
  seal: { record: { type: string; name?: string } }[];
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
    expect(verify).toEqual({ code: 0, stdout: 'verified\n', stderr: '' });
    expect((await dwb(['verify', '--head', bundle.head, join(out, 'bundle.json')])).stdout).toBe('verified\n');
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

  it('explains bad arguments', async () => {
    expect((await dwb(['report', '--run', runDir, '--format', 'docx', '--out', '/tmp/x'])).stderr).toContain('--format must be one of html, pdf, md, json, ipynb, got "docx"');
    expect((await dwb(['verify'])).code).toBe(2);
    expect((await dwb(['verify', '--replay', 'b.json'])).stderr).toContain('--replay needs --connection URI');
  });
});
