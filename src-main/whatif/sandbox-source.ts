/**
 * Where an experiment's data comes from. A source is read twice: once for a snapshot (a digest
 * and a private copy the experiment may change) and once more afterwards for the digest alone,
 * which must match, or the result is discarded because another writer changed the data.
 */
import { resolve } from 'node:path';
import type { CopiedTable } from '../contract/whatif';
import { companionSuffixes, type SandboxKind } from './sandbox-kind';
import { copySource, digestSource, requireSourceFile } from './source-snapshot';

export interface Snapshot {
  copyPath: string;
  /** What the copy is, which decides the engine the experiment runs in. */
  kind: SandboxKind;
  digest: string;
  /** Set when the copy holds tables read from a server. */
  copiedTables?: CopiedTable[];
}

export interface SandboxSource {
  /** Names the source in messages, e.g. its path. */
  readonly description: string;
  snapshot(scratch: string, signal?: AbortSignal): Promise<Snapshot>;
  digest(signal?: AbortSignal): Promise<string>;
}

/** A database file (SQLite, DuckDB, CSV, Parquet): only ever read as bytes, never opened by an engine. */
export function fileSource(path: string, kind: SandboxKind): SandboxSource {
  const source = resolve(path);
  const companions = companionSuffixes(kind);
  return {
    description: `the source ${source}`,
    snapshot: async (scratch) => {
      await requireSourceFile(source);
      const digest = await digestSource(source, companions);
      return { copyPath: await copySource(source, scratch, companions), kind, digest };
    },
    digest: () => digestSource(source, companions),
  };
}
