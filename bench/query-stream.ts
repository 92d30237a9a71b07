/**
 * Streaming cost of `dwb query`: `npm run bench:query-stream` (after `npx electron-vite build`).
 * Builds a SQLite file of 10^6 rows (id, text, real) with the sqlite3 CLI, then for 10^4, 10^5
 * and 10^6 rows, as JSON lines and as CSV, runs the built CLI (`bin/dwb.js query --format …`)
 * and `sqlite3 -json` / `sqlite3 -csv -header` on the same query, interleaved, output into a
 * pipe that is read and dropped. Prints for each the median wall time, the ratio to sqlite3,
 * time to first row, rows per second and the peak memory of the whole process tree (the
 * largest sum of VmHWM over the process and its descendants, sampled from /proc every 10 ms);
 * then `dwb query "SELECT 1"` against `node -e 0`, and issue 29's goals met or not (the first row's
 * start-up is when SELECT 1's row comes out, measured beside the 10^6-row runs). CPU is sampled
 * from /proc and misses up to 10 ms at the end of each process. Prints
 * figures; asserts nothing.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './measure';

const repoRoot = join(__dirname, '..');
const sizes = [10_000, 100_000, 1_000_000];
const formats = ['jsonl', 'csv'] as const;
/** Runs of each command per size and format, interleaved; medians are printed. */
const repeats = 3;

interface Figures {
  firstRowMs: number;
  totalMs: number;
  lines: number;
  peakMb: number;
  /** User + system CPU of the process tree, as last sampled before it ended (a little under the true figure). */
  cpuMs: number;
}

const clockTicksPerSecond = 100;

/** Peak resident memory (VmHWM, kB) and CPU time (ms) of a process plus all its descendants (0 once gone). */
function treeSample(pid: number): { peakKb: number; cpuMs: number } {
  const total = { peakKb: 0, cpuMs: 0 };
  try {
    total.peakKb += Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    // utime and stime: fields 14 and 15, counted after the command name's closing parenthesis.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    total.cpuMs += ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicksPerSecond;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      for (const child of children === '' ? [] : children.split(/\s+/)) {
        const sample = treeSample(Number(child));
        total.peakKb += sample.peakKb;
        total.cpuMs += sample.cpuMs;
      }
    }
  } catch {
    // the process ended between two reads
  }
  return total;
}

function measure(command: string, args: string[]): Promise<Figures> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let firstRowMs = -1;
    let lines = 0;
    let peakKb = 0;
    let cpuMs = 0;
    const sample = (): void => {
      const now = treeSample(child.pid ?? 0);
      peakKb = Math.max(peakKb, now.peakKb);
      cpuMs = Math.max(cpuMs, now.cpuMs);
    };
    const sampler = setInterval(sample, 10);
    child.stdout.on('data', (chunk: Buffer) => {
      if (firstRowMs < 0) firstRowMs = performance.now() - started;
      sample();
      for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, index + 1)) lines += 1;
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      clearInterval(sampler);
      if (code !== 0) return reject(new Error(`${command} exited ${code}: ${stderr}`));
      resolve({ firstRowMs, totalMs: performance.now() - started, lines, peakMb: peakKb / 1024, cpuMs });
    });
  });
}

/** The medians of each figure over runs. */
function medianOf(runs: Figures[]): Figures {
  return {
    firstRowMs: median(runs.map((run) => run.firstRowMs)),
    totalMs: median(runs.map((run) => run.totalMs)),
    lines: median(runs.map((run) => run.lines)),
    peakMb: Math.max(...runs.map((run) => run.peakMb)),
    cpuMs: median(runs.map((run) => run.cpuMs)),
  };
}

function line(label: string, rows: number, figures: Figures, reference?: Figures): string {
  const ratio = reference === undefined ? undefined : figures.totalMs / reference.totalMs;
  const cpuRatio = reference === undefined ? '' : ` (${(figures.cpuMs / Math.max(reference.cpuMs, 1)).toFixed(1)}×)`;
  const rate = Math.round(rows / (figures.totalMs / 1000)).toLocaleString('en-US');
  return (
    `  ${label.padEnd(8)} ${rows.toLocaleString('en-US').padStart(10)} rows  first row ${figures.firstRowMs.toFixed(0).padStart(5)} ms  ` +
    `total ${figures.totalMs.toFixed(0).padStart(6)} ms${ratio === undefined ? '        ' : ` (${ratio.toFixed(2)}×)`}  ${rate.padStart(10)} rows/s  ` +
    `peak tree memory ${figures.peakMb.toFixed(1).padStart(6)} MB  CPU ${figures.cpuMs.toFixed(0).padStart(5)} ms${cpuRatio}`
  );
}

const verdict = (met: boolean): string => (met ? 'met' : 'NOT met');

async function main(): Promise<void> {
  const cli = join(repoRoot, 'bin', 'dwb.js');
  if (!existsSync(join(repoRoot, 'out', 'main', 'cli.js'))) throw new Error('build first: npx electron-vite build');
  const dir = mkdtempSync(join(tmpdir(), 'dwb-bench-stream-'));
  const largest = Math.max(...sizes);
  try {
    const database = join(dir, 'rows.sqlite');
    execFileSync('sqlite3', [
      database,
      `CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, value REAL);
       WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ${largest})
       INSERT INTO t SELECT i, 'name-' || i, i * 0.5 FROM c;`,
    ]);
    console.log(`load average at start: ${loadavg().map((load) => load.toFixed(1)).join(' ')}`);
    const dwb = (format: string, size: number, query: string): Promise<Figures> =>
      measure(process.execPath, [cli, 'query', '--format', format, '--max-rows', String(size), '--connection', `sqlite:${database}`, query]);
    const sqlite3 = (format: string, query: string): Promise<Figures> =>
      measure('sqlite3', format === 'csv' ? ['-csv', '-header', database, query] : ['-json', database, query]);

    // Start-up first, interleaved: the runtime's own against `dwb query "SELECT 1"`.
    const nodeRuns: number[] = [];
    const selectOneRuns: number[] = [];
    for (let run = 0; run < 7; run += 1) {
      nodeRuns.push((await measure(process.execPath, ['-e', '0'])).totalMs);
      selectOneRuns.push((await dwb('csv', 1, 'SELECT 1')).totalMs);
    }
    const startupMs = median(selectOneRuns);

    const atLargest: Partial<Record<(typeof formats)[number], { dwb: Figures; sqlite3: Figures; startupMs: number }>> = {};
    for (const format of formats) {
      console.log(`\n${format === 'jsonl' ? 'JSON lines (sqlite3 -json)' : 'CSV (sqlite3 -csv -header)'}, medians of ${repeats} interleaved runs:`);
      for (const size of sizes) {
        const query = `SELECT * FROM t LIMIT ${size}`;
        const ours: Figures[] = [];
        const theirs: Figures[] = [];
        const startups: number[] = [];
        for (let run = 0; run < repeats; run += 1) {
          // Start-up measured beside the largest runs, under the same load: when SELECT 1's own row comes out.
          if (size === largest) startups.push((await dwb('csv', 1, 'SELECT 1')).firstRowMs);
          ours.push(await dwb(format, size, query));
          theirs.push(await sqlite3(format, query));
        }
        const mine = medianOf(ours);
        const reference = medianOf(theirs);
        console.log(line('dwb', size, mine, reference));
        console.log(line('sqlite3', size, reference));
        if (size === largest) atLargest[format] = { dwb: mine, sqlite3: reference, startupMs: median(startups) };
      }
    }

    console.log(`\nstart-up: dwb query "SELECT 1" ${startupMs.toFixed(0)} ms, node -e 0 ${median(nodeRuns).toFixed(0)} ms (medians of 7)`);
    console.log(`load average at end: ${loadavg().map((load) => load.toFixed(1)).join(' ')}`);
    console.log('\ngoals (issue 29), at 10^6 rows:');
    for (const format of formats) {
      const figures = atLargest[format];
      if (!figures) continue;
      const ratio = figures.dwb.totalMs / figures.sqlite3.totalMs;
      console.log(`  ${format.padEnd(5)} wall ≤ 1.5× sqlite3: ${ratio.toFixed(2)}× — ${verdict(ratio <= 1.5)}`);
      console.log(`  ${format.padEnd(5)} peak process-tree memory < 64 MB: ${figures.dwb.peakMb.toFixed(1)} MB — ${verdict(figures.dwb.peakMb < 64)}`);
      // Start-up is when `SELECT 1`'s row comes out (measured beside these runs); the first row of a large result should follow within 50 ms of it.
      const afterStartup = figures.dwb.firstRowMs - figures.startupMs;
      console.log(
        `  ${format.padEnd(5)} first row within 50 ms of start-up: ${figures.dwb.firstRowMs.toFixed(0)} ms, SELECT 1's row at ${figures.startupMs.toFixed(0)} ms beside it — ${afterStartup.toFixed(0)} ms after: ${verdict(afterStartup <= 50)}`,
      );
    }
    console.log(`  SELECT 1 under 0.15 s: ${(startupMs / 1000).toFixed(3)} s — ${verdict(startupMs < 150)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
