/**
 * [ext] A persistent cache of parsed DQA dumps for `dwb dqa solve`: researchers solve the same
 * dumps many times, and parsing them is most of a run's work. An entry is named by the dump
 * file's sha-256 (its bytes, not its name or time), the scenario, the dump kind and the format
 * version, and holds the binary form of dump-cache-format.ts.
 *
 * - Where: env DWB_DUMP_CACHE_DIR, else $XDG_CACHE_HOME/dwb/dumps, else ~/.cache/dwb/dumps.
 *   `dwb dqa solve --no-dump-cache` neither reads nor writes it.
 * - Writes are atomic (a temporary file in the same folder, then rename), so a reader sees a
 *   whole entry or none; concurrent runs may both write one, the last rename wins, both whole.
 * - Size-bounded: at close, after a run that wrote, the least recently used entries (by
 *   modification time, which a hit refreshes) are removed until the entries fit `maxBytes`;
 *   temporary files an hour old (a run died while writing) go too.
 * - Anything wrong with an entry (unreadable, truncated, damaged, another version, another
 *   dump's) is a miss: the dump is parsed again and the entry rewritten. Anything wrong with
 *   the folder (unwritable, full) is said once and the run goes on without caching. The cache
 *   never changes an answer: the decoder checks the payload's sha-256 and every length and index.
 *   (Someone able to write the folder could forge an entry with a matching hash; the folder is
 *   the user's own, like the dumps themselves.)
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { BuildingData } from './building-data';
import { decodeParsedDump, DUMP_CACHE_FORMAT_VERSION, encodeParsedDump, type DumpCacheKey } from './dump-cache-format';
import type { LocatingData } from './locating-data';

export const DUMP_CACHE_DIR_ENV = 'DWB_DUMP_CACHE_DIR';
/** Room for a few hundred dumps of the DQA sizes (an entry is 15–42 % of its dump on the dev subset). */
export const DEFAULT_DUMP_CACHE_MAX_BYTES = 256 * 1024 * 1024;
const ENTRY_SUFFIX = '.dwbdump';
const TEMPORARY_SUFFIX = '.tmp';
const STALE_TEMPORARY_MS = 60 * 60 * 1000;

export function defaultDumpCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env[DUMP_CACHE_DIR_ENV];
  if (explicit !== undefined && explicit !== '') return explicit;
  const xdg = env['XDG_CACHE_HOME'];
  return join(xdg !== undefined && xdg !== '' ? xdg : join(homedir(), '.cache'), 'dwb', 'dumps');
}

export interface DumpCacheCounts {
  hits: number;
  writes: number;
  /** Entries found but unusable (damaged, another format), parsed again and rewritten. */
  rejected: number;
}

export interface DumpCache {
  readonly dir: string;
  get(key: DumpCacheKey): LocatingData | BuildingData | null;
  put(key: DumpCacheKey, data: LocatingData | BuildingData): void;
  /** Keeps the size bound (once per run, after its writes, rather than after each). */
  close(): void;
  readonly counts: DumpCacheCounts;
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
}

export function entryName(key: DumpCacheKey): string {
  return `${key.sourceHash.toString('hex')}.${key.scenario}.${key.kind}.v${DUMP_CACHE_FORMAT_VERSION}${ENTRY_SUFFIX}`;
}

export function openDumpCache(options: { dir?: string; maxBytes?: number; warn?: (line: string) => void } = {}): DumpCache {
  const dir = options.dir ?? defaultDumpCacheDir();
  const maxBytes = options.maxBytes ?? DEFAULT_DUMP_CACHE_MAX_BYTES;
  const counts: DumpCacheCounts = { hits: 0, writes: 0, rejected: 0 };
  let writable = true;
  let temporaries = 0;
  let written = false;
  let made = false;

  const evict = (): void => {
    const entries: { path: string; size: number; used: number }[] = [];
    const now = Date.now();
    for (const name of readdirSync(dir)) {
      const entry = name.endsWith(ENTRY_SUFFIX);
      if (!entry && !name.endsWith(TEMPORARY_SUFFIX)) continue;
      try {
        const stat = statSync(join(dir, name));
        // A temporary file an hour old was left by a run that died while writing it.
        if (!entry && now - stat.mtimeMs > STALE_TEMPORARY_MS) rmSync(join(dir, name), { force: true });
        else if (entry && stat.isFile()) entries.push({ path: join(dir, name), size: stat.size, used: stat.mtimeMs });
      } catch {
        // Removed meanwhile by another run.
      }
    }
    let total = entries.reduce((sum, e) => sum + e.size, 0);
    entries.sort((a, b) => a.used - b.used);
    for (const entry of entries) {
      if (total <= maxBytes) break;
      rmSync(entry.path, { force: true });
      total -= entry.size;
    }
  };

  return {
    dir,
    counts,
    get(key) {
      const path = join(dir, entryName(key));
      let bytes: Buffer;
      try {
        bytes = readFileSync(path);
      } catch {
        return null;
      }
      const data = decodeParsedDump(bytes, key);
      if (data === null) {
        counts.rejected += 1;
        return null;
      }
      counts.hits += 1;
      try {
        const now = new Date();
        utimesSync(path, now, now);
      } catch {
        // A read-only cache still serves its entries.
      }
      return data;
    },
    put(key, data) {
      if (!writable) return;
      const path = join(dir, entryName(key));
      temporaries += 1;
      const temporary = join(dir, `.${process.pid}-${temporaries}-${Math.random().toString(36).slice(2)}${TEMPORARY_SUFFIX}`);
      try {
        if (!made) mkdirSync(dir, { recursive: true });
        made = true;
        writeFileSync(temporary, encodeParsedDump(key, data));
        renameSync(temporary, path);
        counts.writes += 1;
        written = true;
      } catch (error) {
        writable = false;
        try {
          rmSync(temporary, { force: true });
        } catch {
          // Nothing more to do in a folder we cannot write.
        }
        options.warn?.(`dump cache: cannot write ${dir} (${codeOf(error)}); going on without caching`);
      }
    },
    close() {
      if (!written) return;
      written = false;
      try {
        evict();
      } catch {
        // The entries are written; the bound is kept by the next run that can list the folder.
      }
    },
  };
}
