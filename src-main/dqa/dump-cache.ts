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
 * - [ext] Recognising a dump without reading it (round 6): after hashing a dump, a run leaves a
 *   small "identity" file named by the dump file's device, inode, size, modification time and
 *   change time (nanoseconds) and holding the sha-256 it computed; a later run that finds the
 *   same five values takes that hash instead of reading and hashing the file (≈ 5 ms of the
 *   dev dumps' 3.8 MB per run). Any write to a file moves its change time (no user tool can
 *   set it back), a replacement changes its inode, so a changed dump is read and hashed again.
 *   What it risks: a file changed twice within one tick of the file system's clock with its
 *   size kept, or a file system that keeps no change time — so a hash is only remembered for a
 *   file whose times are at least RACY_MS old and unchanged across the read (as git does for its
 *   index), and the entry the hash names is still checked as before.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
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
const IDENTITY_SUFFIX = '.dwbid';
const IDENTITY_MAGIC = Buffer.from('DWBID1\n', 'latin1');
const SOURCE_HASH_BYTES = 32;
/** A file whose modification or change time is more recent than this may still be changing within one clock tick (FAT keeps times to 2 s). */
export const RACY_MS = 3000;
/** Identity files kept (the most recently written); a run needs one per dump. */
const MAX_IDENTITIES = 4096;

/** A dump file's identity at one moment: what `stat` says, without reading it. */
export interface FileIdentity {
  readonly name: string;
  readonly newestTimeMs: number;
}

export function fileIdentity(path: string): FileIdentity | null {
  try {
    const stat = statSync(path, { bigint: true });
    if (!stat.isFile()) return null;
    const identity = `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
    const name = `${createHash('sha256').update(identity).digest('hex').slice(0, 40)}${IDENTITY_SUFFIX}`;
    return { name, newestTimeMs: Number((stat.mtimeNs > stat.ctimeNs ? stat.mtimeNs : stat.ctimeNs) / 1_000_000n) };
  } catch {
    return null;
  }
}

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
  /** Dumps recognised by their identity file, neither read nor hashed. */
  recognised: number;
}

export interface DumpCache {
  readonly dir: string;
  get(key: DumpCacheKey): LocatingData | BuildingData | null;
  put(key: DumpCacheKey, data: LocatingData | BuildingData): void;
  /** Keeps the size bound (once per run, after its writes, rather than after each). */
  close(): void;
  readonly counts: DumpCacheCounts;
  /** The sha-256 a run remembered for a file with exactly this identity, else null. */
  knownSourceHash(identity: FileIdentity): Buffer | null;
  /**
   * Remembers `hash` as the sha-256 of `path`'s bytes, read after `identity` was taken: only
   * when the file's identity is still the same and its times are older than `racyMs`.
   */
  rememberSourceHash(path: string, identity: FileIdentity, hash: Buffer): void;
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
}

export function entryName(key: DumpCacheKey): string {
  return `${key.sourceHash.toString('hex')}.${key.scenario}.${key.kind}.v${DUMP_CACHE_FORMAT_VERSION}${ENTRY_SUFFIX}`;
}

export function openDumpCache(options: { dir?: string; maxBytes?: number; racyMs?: number; warn?: (line: string) => void } = {}): DumpCache {
  const dir = options.dir ?? defaultDumpCacheDir();
  const maxBytes = options.maxBytes ?? DEFAULT_DUMP_CACHE_MAX_BYTES;
  const racyMs = options.racyMs ?? RACY_MS;
  const counts: DumpCacheCounts = { hits: 0, writes: 0, rejected: 0, recognised: 0 };
  let writable = true;
  let temporaries = 0;
  let written = false;
  let made = false;

  const evict = (): void => {
    const entries: { path: string; size: number; used: number }[] = [];
    const identities: { path: string; used: number }[] = [];
    const now = Date.now();
    for (const name of readdirSync(dir)) {
      const entry = name.endsWith(ENTRY_SUFFIX);
      const identity = name.endsWith(IDENTITY_SUFFIX);
      if (!entry && !identity && !name.endsWith(TEMPORARY_SUFFIX)) continue;
      try {
        const stat = statSync(join(dir, name));
        // A temporary file an hour old was left by a run that died while writing it.
        if (!entry && !identity && now - stat.mtimeMs > STALE_TEMPORARY_MS) rmSync(join(dir, name), { force: true });
        else if (entry && stat.isFile()) entries.push({ path: join(dir, name), size: stat.size, used: stat.mtimeMs });
        else if (identity && stat.isFile()) identities.push({ path: join(dir, name), used: stat.mtimeMs });
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
    // Identity files (39 bytes each) are bounded by number: the newest MAX_IDENTITIES stay.
    identities.sort((a, b) => b.used - a.used);
    for (const stale of identities.slice(MAX_IDENTITIES)) rmSync(stale.path, { force: true });
  };

  /** Writes `name` whole or not at all (a temporary file, then rename); false when the folder cannot be written. */
  const writeAtomically = (name: string, bytesOf: () => Uint8Array): boolean => {
    if (!writable) return false;
    temporaries += 1;
    const temporary = join(dir, `.${process.pid}-${temporaries}-${Math.random().toString(36).slice(2)}${TEMPORARY_SUFFIX}`);
    try {
      if (!made) mkdirSync(dir, { recursive: true });
      made = true;
      writeFileSync(temporary, bytesOf());
      renameSync(temporary, join(dir, name));
      written = true;
      return true;
    } catch (error) {
      writable = false;
      try {
        rmSync(temporary, { force: true });
      } catch {
        // Nothing more to do in a folder we cannot write.
      }
      options.warn?.(`dump cache: cannot write ${dir} (${codeOf(error)}); going on without caching`);
      return false;
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
      if (writeAtomically(entryName(key), () => encodeParsedDump(key, data))) counts.writes += 1;
    },
    knownSourceHash(identity) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(join(dir, identity.name));
      } catch {
        return null;
      }
      if (bytes.length !== IDENTITY_MAGIC.length + SOURCE_HASH_BYTES || !bytes.subarray(0, IDENTITY_MAGIC.length).equals(IDENTITY_MAGIC)) return null;
      counts.recognised += 1;
      return Buffer.from(bytes.subarray(IDENTITY_MAGIC.length));
    },
    rememberSourceHash(path, identity, hash) {
      if (hash.length !== SOURCE_HASH_BYTES || Date.now() - identity.newestTimeMs < racyMs) return;
      // The same identity after the read: the bytes hashed are the bytes this identity names.
      if (fileIdentity(path)?.name !== identity.name) return;
      writeAtomically(identity.name, () => Buffer.concat([IDENTITY_MAGIC, hash]));
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
