/**
 * `dwb dqa solve` end to end: the real CLI (bin/dwb.js, built by `electron-vite build`) on the
 * DQA dev subset, both scenarios, both database kinds, both rule sets; each combination is
 * solved once (in parallel) and shared by the assertions.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseCypherDump } from '../../../src-main/dqa/cypher-dump';
import { writeLadybugDatabase } from '../../../src-main/dqa/ladybug-import';
import { dqaRoot, sqliteFromDqaDump } from '../../support/fixtures';
import { useSuiteTempDir } from '../../support/temp';
import { runDwb, type CliResult } from '../../support/cli';

const suiteDir = useSuiteTempDir();
/** Solving the whole dev subset prints thousands of lines: a larger buffer and more time. */
const cli = (...args: string[]): Promise<CliResult> => runDwb(args, { timeoutMs: 240_000, maxBuffer: 32 * 1024 * 1024 });



const questions = (scenario: string): string => join(dqaRoot(), scenario, 'questions.json');
type Combo = `${'locating' | 'building'}/${'rdb' | 'gdb'}/${'compat' | 'stated'}`;
const combos: Combo[] = [];
for (const scenario of ['locating', 'building'] as const) for (const db of ['rdb', 'gdb'] as const) for (const rules of ['compat', 'stated'] as const) combos.push(`${scenario}/${db}/${rules}`);

const results = new Map<Combo, CliResult & { records: Record<string, unknown>[] }>();

beforeAll(async () => {
  await Promise.all(
    combos.map(async (combo) => {
      const [scenario, db, rules] = combo.split('/') as [string, string, string];
      const out = join(suiteDir(), `${scenario}-${db}-${rules}.jsonl`);
      // A fresh dump cache per combination, so each parses its dumps (see the dump cache's own tests below).
      const env = { DWB_DUMP_CACHE_DIR: join(suiteDir(), `cache-${scenario}-${db}-${rules}`) };
      const result = await runDwb(['dqa', 'solve', '--questions', questions(scenario), '--engine', 'simulator', '--rules', rules, '--db', db, '--out', out], {
        timeoutMs: 240_000,
        maxBuffer: 32 * 1024 * 1024,
        env,
      });
      const records = result.code === 0 ? readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>) : [];
      results.set(combo, { ...result, records });
    }),
  );
}, 600_000);

const get = (combo: Combo): CliResult & { records: Record<string, unknown>[] } => results.get(combo) as CliResult & { records: Record<string, unknown>[] };
const lastTwo = (stdout: string): string[] => stdout.trim().split('\n').slice(-2);

describe('dwb dqa solve --engine simulator on the dev subset', () => {
  it.each([
    ['locating/rdb/compat', 'accuracy: 81/81', 'accuracy (ties counted): 81/81'],
    ['locating/gdb/compat', 'accuracy: 81/81', 'accuracy (ties counted): 81/81'],
    ['building/rdb/compat', 'accuracy: 36/36', 'accuracy (ties counted): 36/36'],
    ['building/gdb/compat', 'accuracy: 36/36', 'accuracy (ties counted): 36/36'],
    ['locating/rdb/stated', 'accuracy: 61/81', 'accuracy (ties counted): 61/81'],
    ['locating/gdb/stated', 'accuracy: 61/81', 'accuracy (ties counted): 61/81'],
    ['building/rdb/stated', 'accuracy: 20/36', 'accuracy (ties counted): 21/36'],
    ['building/gdb/stated', 'accuracy: 20/36', 'accuracy (ties counted): 21/36'],
  ] as [Combo, string, string][])('%s ends with "%s" and "%s" and exits 0', (combo, accuracy, withTies) => {
    const result = get(combo);
    expect(result.code, result.stderr).toBe(0);
    expect(lastTwo(result.stdout)).toEqual([accuracy, withTies]);
    const total = combo.startsWith('locating') ? 81 : 36;
    expect(result.stdout.trim().split('\n')).toHaveLength(total + 2);
  });

  it('prints one line per question: id, decision, the tied set when there is one, the annotation, agreement', () => {
    const locating = get('locating/rdb/compat').stdout.split('\n');
    expect(locating[0]).toBe('L1  decision=krakow  annotated=krakow  agree');
    const l12 = locating.find((line) => line.startsWith('L12  ')) ?? '';
    expect(l12).toMatch(/^L12 {2}decision=african_great_lakes {2}tied\(79\)=african_great_lakes,kongo,zambezi,[a-z_,]+ {2}annotated=african_great_lakes {2}agree$/);
    const building = get('building/rdb/compat').stdout.split('\n');
    // Four equivalent glassworks within 1e-16: compat's strict, table-order tie-break lands where the annotation did.
    expect(building.find((line) => line.startsWith('B25  '))).toBe('B25  decision=2677  tied(4)=2623,2655,2668,2677  annotated=2677  agree');
    // stated breaks B30's float-level tie by table order; the annotation is the other twin.
    expect(get('building/rdb/stated').stdout.split('\n').find((line) => line.startsWith('B30  '))).toMatch(/^B30 {2}decision=\d+ {2}tied\(2\)=\d+,\d+ {2}annotated=\d+ {2}disagree \(annotation tied\)$/);
    expect(get('locating/rdb/stated').stdout).toMatch(/^L7 {2}decision=\w+ {2}annotated=\w+ {2}disagree$/m);
  });

  it('reports progress on stderr: each dump file is parsed in memory once', () => {
    const stderr = get('building/rdb/compat').stderr;
    expect(stderr).toContain('parsing db/USA1836.sql');
    // Questions share dumps: 14 Building dumps, each parsed once.
    expect(stderr.split('\n').filter((line) => line.startsWith('parsing ')).length).toBe(14);
    expect(get('building/gdb/compat').stderr).toContain('parsing db/USA1836.cql');
  });

  it('writes one JSON object per question with --out', () => {
    const { records } = get('building/rdb/compat');
    expect(records).toHaveLength(36);
    const b25 = records.find((r) => r['id'] === 'B25') as Record<string, unknown>;
    expect(b25).toMatchObject({ decision: '2677', tied: ['2623', '2655', '2668', '2677'], annotation: '2677', agrees: true, agreesWithTies: true, rules: 'compat', db: 'rdb', database: 'db/JAP1836.sql' });
    expect(b25['via']).toBe('relational dump parsed in memory (db/JAP1836.sql)');
    expect(b25['margin']).toBeLessThan(1e-13);
    const candidates = b25['candidates'] as { candidate: string; before: number; after: number; delta: number; rank: number }[];
    expect(candidates[0]).toMatchObject({ candidate: '2677', rank: 1 });
    expect(Object.keys(candidates[0] ?? {})).toEqual(['candidate', 'before', 'after', 'delta', 'rank']);
    const graph = get('locating/gdb/compat').records;
    expect(graph.every((r) => /^graph dump parsed in memory \(db\/locating-1445-[0-9a-f]{8}\.cql\)$/.test(String(r['via'])))).toBe(true);
  });
});

describe('dwb dqa solve over several question files and both database kinds in one run', () => {
  it('prints one block per file and kind, each with a header and its accuracy lines, and one --out', async () => {
    const out = join(suiteDir(), 'all.jsonl');
    const result = await cli('dqa', 'solve', '--questions', questions('locating'), '--questions', questions('building'), '--engine', 'simulator', '--db', 'rdb,gdb', '--out', out);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines.filter((line) => line.startsWith('# '))).toEqual([
      `# ${questions('locating')} --db rdb --rules compat`,
      `# ${questions('locating')} --db gdb --rules compat`,
      `# ${questions('building')} --db rdb --rules compat`,
      `# ${questions('building')} --db gdb --rules compat`,
    ]);
    expect(lines.filter((line) => line.startsWith('accuracy'))).toEqual([
      'accuracy: 81/81',
      'accuracy (ties counted): 81/81',
      'accuracy: 81/81',
      'accuracy (ties counted): 81/81',
      'accuracy: 36/36',
      'accuracy (ties counted): 36/36',
      'accuracy: 36/36',
      'accuracy (ties counted): 36/36',
    ]);
    expect(lines).toHaveLength(4 + 2 * (81 + 36) + 8);
    const records = readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records).toHaveLength(2 * (81 + 36));
    expect(records.filter((r) => r['db'] === 'gdb' && r['agrees'] === true)).toHaveLength(81 + 36);
  });
});

describe('dwb dqa solve with the dump cache [ext]', () => {
  it('prints the same bytes without the cache, cold, warm, over damaged entries and in two runs filling it at once, and says what it read', async () => {
    const cacheDir = join(suiteDir(), 'cache-identical');
    const run = async (label: string, ...extra: string[]): Promise<CliResult & { out: Buffer }> => {
      const out = join(suiteDir(), `identical-${label}.jsonl`);
      const args = ['dqa', 'solve', '--questions', questions('locating'), '--questions', questions('building'), '--engine', 'simulator', '--db', 'rdb,gdb', '--out', out, ...extra];
      const result = await runDwb(args, { timeoutMs: 240_000, maxBuffer: 32 * 1024 * 1024, env: { DWB_DUMP_CACHE_DIR: cacheDir } });
      expect(result.code, result.stderr).toBe(0);
      return { ...result, out: readFileSync(out) };
    };
    const without = await run('without', '--no-dump-cache');
    expect(existsSync(cacheDir)).toBe(false);
    expect(without.stderr).not.toContain('dump cache');
    const cold = await run('cold');
    const warm = await run('warm');
    // Damage every entry: flip one payload byte in half of them, cut the others short.
    const entries = readdirSync(cacheDir)
      .filter((name) => name.endsWith('.dwbdump'))
      .sort();
    expect(entries).toHaveLength(34);
    entries.forEach((name, index) => {
      const bytes = readFileSync(join(cacheDir, name));
      if (index % 2 === 0) bytes[bytes.length - 9] = (bytes[bytes.length - 9] as number) ^ 1;
      writeFileSync(join(cacheDir, name), index % 2 === 0 ? bytes : bytes.subarray(0, bytes.length >> 1));
    });
    const damaged = await run('damaged');
    for (const other of [cold, warm, damaged]) {
      expect(other.stdout).toBe(without.stdout);
      expect(other.out.equals(without.out)).toBe(true);
    }
    expect(lastTwo(without.stdout)).toEqual(['accuracy: 36/36', 'accuracy (ties counted): 36/36']);
    expect(cold.stderr).toContain(`dump cache ${cacheDir}: 0 read, 34 written; 0 dumps recognised without reading them\n`);
    expect(cold.stderr.split('\n').filter((line) => line.startsWith('parsing '))).toHaveLength(34);
    expect(warm.stderr).toContain(`dump cache ${cacheDir}: 34 read, 0 written; 34 dumps recognised without reading them\n`);
    expect(warm.stderr).toContain('db/USA1836.cql from the dump cache');
    expect(warm.stderr).not.toMatch(/^parsing /m);
    expect(damaged.stderr).toContain(`dump cache ${cacheDir}: 0 read, 34 written, 34 unusable entries parsed again; 34 dumps recognised without reading them\n`);

    // Two runs filling one empty folder at the same time: both whole, both the same answers, and the entries whole after.
    const sharedDir = join(suiteDir(), 'cache-concurrent');
    const args = ['dqa', 'solve', '--questions', questions('locating'), '--questions', questions('building'), '--engine', 'simulator', '--db', 'rdb,gdb'];
    const options = { timeoutMs: 240_000, maxBuffer: 32 * 1024 * 1024, env: { DWB_DUMP_CACHE_DIR: sharedDir } };
    const together = await Promise.all([runDwb(args, options), runDwb(args, options)]);
    for (const result of together) {
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe(without.stdout);
    }
    const after = await runDwb(args, options);
    expect(after.stdout).toBe(without.stdout);
    expect(after.stderr).toContain(`dump cache ${sharedDir}: 34 read, 0 written; 34 dumps recognised without reading them\n`);
    expect(readdirSync(sharedDir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});

describe('dwb dqa solve --target', () => {
  it('reads databases the analyst already loaded, one per dump via {dump}', async () => {
    const dir = suiteDir();
    sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', dir);
    sqliteFromDqaDump('locating/db/locating-1445-a6e04daf.sql', dir);
    const result = await cli('dqa', 'solve', '--questions', questions('locating'), '--engine', 'simulator', '--target', `sqlite:${dir}/{dump}.sqlite`);
    expect(result.code, result.stderr).toBe(0);
    expect(lastTwo(result.stdout)).toEqual(['accuracy: 81/81', 'accuracy (ties counted): 81/81']);
    expect(result.stderr).toContain(`reading sqlite:${dir}/locating-1445-15b6e0aa.sqlite`);
  });

  it('reads graph databases already loaded into Kùzu (kuzu:PATH) with --db gdb', async () => {
    const dir = suiteDir();
    const dumps = ['locating-1445-b1c118fa', 'locating-1445-80090d3c', 'locating-1445-3424fc0c', 'locating-1445-d7a0d95c'];
    for (const name of dumps) {
      const text = readFileSync(join(dqaRoot(), 'locating', 'db', `${name}.cql`), 'utf8');
      await writeLadybugDatabase(parseCypherDump(text, name), join(dir, `${name}.kuzu`), name);
    }
    const result = await cli('dqa', 'solve', '--questions', questions('locating'), '--engine', 'simulator', '--db', 'gdb', '--rules', 'stated', '--target', `kuzu:${dir}/{dump}.kuzu`);
    expect(result.code, result.stderr).toBe(0);
    expect(lastTwo(result.stdout)).toEqual(['accuracy: 61/81', 'accuracy (ties counted): 61/81']);
    expect(result.stderr).toContain(`reading kuzu:${dir}/locating-1445-d7a0d95c.kuzu`);
  });
});

describe('dwb dqa solve on questions it cannot decide', () => {
  it('reports them on their own line, counts them as disagreements and still completes', async () => {
    const all = JSON.parse(readFileSync(questions('locating'), 'utf8')) as Record<string, unknown>[];
    const absolute = (question: Record<string, unknown>): Record<string, unknown> => ({
      ...question,
      rdb: join(dqaRoot(), 'locating', String(question['rdb'])),
      gdb: join(dqaRoot(), 'locating', String(question['gdb'])),
    });
    const file = join(suiteDir(), 'with-unknown-country.json');
    writeFileSync(file, JSON.stringify([absolute(all[0] as Record<string, unknown>), { ...absolute(all[1] as Record<string, unknown>), country: 'XXX' }]));
    const result = await cli('dqa', 'solve', '--questions', file, '--engine', 'simulator');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual([
      'L1  decision=krakow  annotated=krakow  agree',
      `L2  error=unknown country XXX  annotated=${String(all[1]?.['answer'])}  disagree`,
      'accuracy: 1/2',
      'accuracy (ties counted): 1/2',
    ]);
    expect(result.stderr).toContain('1 question(s) could not be decided');
  });
});

describe('dwb dqa solve refuses bad input with one clear stderr line', () => {
  async function fails(args: string[], code: number, message: RegExp): Promise<void> {
    const result = await cli('dqa', ...args);
    expect(result.code).toBe(code);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  }

  it('bad paths, malformed files, unknown flags and engines', async () => {
    const dir = suiteDir();
    const notJson = join(dir, 'not-json.json');
    writeFileSync(notJson, '[{"id": "L1",');
    const missingField = join(dir, 'missing-field.json');
    const question = JSON.parse(readFileSync(questions('locating'), 'utf8') as string) as Record<string, unknown>[];
    writeFileSync(missingField, JSON.stringify([question[0], { ...question[1], answer: undefined }]));
    const missingDump = join(dir, 'missing-dump.json');
    writeFileSync(missingDump, JSON.stringify([{ ...question[0], rdb: 'db/nowhere.sql' }]));

    await fails(['solve', '--questions', '/no/such/questions.json', '--engine', 'simulator'], 1, /^dwb dqa: not-found: cannot read the questions file \/no\/such\/questions\.json: no such file \(ENOENT\)/);
    await fails(['solve', '--questions', notJson, '--engine', 'simulator'], 2, /^dwb dqa: invalid-request: .*not-json\.json is not valid JSON/);
    await fails(['solve', '--questions', missingField, '--engine', 'simulator'], 2, /^dwb dqa: invalid-request: .*missing-field\.json: question 2 \(L2\), field answer: /);
    await fails(['solve', '--questions', missingDump, '--engine', 'simulator'], 1, /^dwb dqa: not-found: dump db\/nowhere\.sql not found at /);
    await fails(['solve', '--questions', questions('locating'), '--engine', 'simulator', '--frobnicate'], 2, /^dwb dqa: invalid-request: Unknown option '--frobnicate'/);
    await fails(['solve', '--questions', questions('locating'), '--engine', 'magic'], 1, /^dwb dqa: unsupported: --engine magic is not available: use simulator or a technique \(singlerag, iterrag, planrag, planrag-norp, /);
    await fails(['solve', '--questions', questions('locating'), '--engine', 'planrag'], 2, /^dwb dqa: invalid-request: --base-url is required with --engine planrag/);
    await fails(['solve', '--questions', questions('locating')], 2, /^dwb dqa: invalid-request: --engine is required/);
    await fails(['solve', '--questions', questions('locating'), '--engine', 'simulator', '--rules', 'loose'], 2, /^dwb dqa: invalid-request: --rules must be compat or stated, got "loose"/);
    await fails(['solve', '--questions', questions('locating'), '--engine', 'simulator', '--db', 'xml'], 2, /^dwb dqa: invalid-request: --db must be rdb or gdb, got "xml"/);
    await fails(['solve', '--questions', questions('locating'), '--engine', 'simulator', '--db', 'rdb,sql'], 2, /^dwb dqa: invalid-request: --db must be rdb or gdb, got "sql"/);
    await fails(['solve', '--questions', questions('locating'), '--engine', 'simulator', '--target', 'oracle://x'], 1, /^dwb dqa: invalid-uri: Unsupported connection scheme "oracle:"/);
    await fails(['solve', '--questions', questions('locating'), '--engine', 'simulator', '--out', '/no/such/dir/out.jsonl'], 1, /^dwb dqa: not-found: cannot write --out/);
    await fails(['frobnicate'], 2, /^dwb dqa: invalid-request: unknown subcommand "frobnicate"/);
  });
});
