/**
 * The workspace's AutoPlan playbooks: every version as its sealed JSON record
 * (<workspace>/playbooks/<scenario>-<db>/<hash>.json, never rewritten) and, beside them, a
 * registry (registry.json) of the analyst's reviews and the pin. A version is checked against
 * its hash whenever it is read, so an edited file is refused rather than used.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { diffLines } from 'diff';
import { WorkbenchError, fileErrorCode, fileErrorReason } from '../../../contract/errors';
import { nonRegularKind, readRegularText } from '../../../native/bounded-read';
import type { DiffPart, PlaybookDetail, PlaybookStatus, PlaybookTask, PlaybookVersionSummary } from '../../../contract/playbooks';
import { findSpecifics, sealVersion, versionHash, type PlaybookVersion } from './playbook';

/** A DQA scenario, or `conn-<connectionId>` for the analyst's own data (see connectionTaskType). */
export type Scenario = 'locating' | 'building' | `conn-${string}`;
export type DbKind = 'rdb' | 'gdb';
/** The DQA task types, always listed (empty or not). */
export const TASK_TYPES: readonly { scenario: Scenario; db: DbKind }[] = [
  { scenario: 'locating', db: 'rdb' },
  { scenario: 'locating', db: 'gdb' },
  { scenario: 'building', db: 'rdb' },
  { scenario: 'building', db: 'gdb' },
];

const entrySchema = z.object({
  hash: z.string(),
  addedAt: z.string(),
  origin: z.enum(['training', 'edit']),
  status: z.enum(['proposed', 'accepted', 'edited', 'rejected']),
  reviewedAt: z.string().nullable(),
  editedInto: z.string().nullable(),
});
type Entry = z.infer<typeof entrySchema>;

const registrySchema = z.object({
  format: z.literal('decision-workbench/playbook-registry'),
  version: z.literal(1),
  pinned: z.string().nullable(),
  entries: z.array(entrySchema),
});
type Registry = z.infer<typeof registrySchema>;

const versionRecordSchema = z
  .object({
    format: z.literal('decision-workbench/playbook-version'),
    version: z.literal(1),
    taskType: z.object({ scenario: z.string(), db: z.string() }),
    hash: z.string(),
    playbook: z.string(),
  })
  .passthrough();

/** Reads a version file and checks its hash; throws a clear error for anything else. */
export function readVersionFile(path: string): PlaybookVersion {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new WorkbenchError('invalid-request', `${path} is not a readable playbook version: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseVersionFile(text, path);
}

/** The version in a file's text, its hash checked; a clear error for anything else. */
function parseVersionFile(text: string, path: string): PlaybookVersion {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new WorkbenchError('invalid-request', `${path} is not a readable playbook version: ${error instanceof Error ? error.message : String(error)}`);
  }
  const checked = versionRecordSchema.safeParse(parsed);
  if (!checked.success) throw new WorkbenchError('invalid-request', `${path} is not a playbook version written by dwb playbook train`);
  const { hash, ...rest } = parsed as PlaybookVersion;
  if (versionHash(rest) !== hash) throw new WorkbenchError('invalid-request', `${path} does not match its hash ${hash.slice(0, 12)}: the file was changed after it was written`);
  return parsed as PlaybookVersion;
}

function writeAtomically(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

export function lineDiff(before: string, after: string): DiffPart[] {
  return diffLines(before === '' ? '' : `${before}\n`, `${after}\n`).map((part) => ({ kind: part.added ? 'added' : part.removed ? 'removed' : 'same', text: part.value }));
}

const CONNECTION_TASK = /^conn-[A-Za-z0-9_-]+$/;
/** Where deleted connection playbooks wait, under the playbooks folder (never listed, never reused). */
const DELETED_FOLDER = '.deleted';

/**
 * The task type of data that is no DQA scenario: its connection. Without a simulator the
 * analyst's own runs on that connection are the training material, so the playbook is theirs.
 */
export function connectionTaskType(connectionId: string): `conn-${string}` {
  const scenario = `conn-${connectionId}` as const;
  if (!CONNECTION_TASK.test(scenario)) throw new WorkbenchError('invalid-request', `connection id "${connectionId}" cannot name a playbook task type (letters, digits, - and _ only)`);
  return scenario;
}

function isDbKind(db: string): db is DbKind {
  return db === 'rdb' || db === 'gdb';
}

function taskOf(version: PlaybookVersion): { scenario: Scenario; db: DbKind } {
  const { scenario, db } = version.taskType;
  const known = TASK_TYPES.find((task) => task.scenario === scenario && task.db === db) ?? (CONNECTION_TASK.test(scenario) && isDbKind(db) ? { scenario: scenario as Scenario, db } : undefined);
  if (!known) throw new WorkbenchError('invalid-request', `playbook version ${version.hash.slice(0, 12)} is for ${scenario} × ${db}, not a task type the workbench knows`);
  return known;
}

export class PlaybookStore {
  constructor(
    /** <workspace>/playbooks */
    private readonly root: string,
    private readonly now: () => string = () => new Date().toISOString(),
  ) {}

  /** The DQA task types, then the connections' task types that have a folder, by name. */
  private taskTypes(): { scenario: Scenario; db: DbKind }[] {
    const own = existsSync(this.root)
      ? readdirSync(this.root)
          .sort()
          .flatMap((name) => {
            const match = /^(conn-[A-Za-z0-9_-]+)-(rdb|gdb)$/.exec(name);
            return match ? [{ scenario: match[1] as Scenario, db: match[2] as DbKind }] : [];
          })
      : [];
    return [...TASK_TYPES, ...own];
  }

  private folder(scenario: Scenario, db: DbKind): string {
    return join(this.root, `${scenario}-${db}`);
  }

  private registry(scenario: Scenario, db: DbKind): Registry {
    const path = join(this.folder(scenario, db), 'registry.json');
    if (!existsSync(path)) return { format: 'decision-workbench/playbook-registry', version: 1, pinned: null, entries: [] };
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new WorkbenchError('invalid-request', `${path} is not readable JSON (${error instanceof Error ? error.message : String(error)}): restore it from a backup, or delete it to review the versions again`);
    }
    const parsed = registrySchema.safeParse(raw);
    if (!parsed.success) throw new WorkbenchError('invalid-request', `${path} is not a playbook registry this version can read`);
    return parsed.data;
  }

  private saveRegistry(scenario: Scenario, db: DbKind, registry: Registry): void {
    mkdirSync(this.folder(scenario, db), { recursive: true });
    writeAtomically(join(this.folder(scenario, db), 'registry.json'), `${JSON.stringify(registry, null, 2)}\n`);
  }

  /** Adds sealed versions (known hashes are skipped); returns how many were new. */
  add(versions: readonly PlaybookVersion[], origin: 'training' | 'edit' = 'training', status: PlaybookStatus = 'proposed'): { added: number; known: number } {
    let added = 0;
    for (const version of versions) {
      const { scenario, db } = taskOf(version);
      const { hash, ...rest } = version;
      if (versionHash(rest) !== hash) throw new WorkbenchError('invalid-request', `playbook version ${hash.slice(0, 12)} does not match its hash`);
      const registry = this.registry(scenario, db);
      if (registry.entries.some((entry) => entry.hash === hash)) continue;
      mkdirSync(this.folder(scenario, db), { recursive: true });
      writeAtomically(join(this.folder(scenario, db), `${hash}.json`), `${JSON.stringify(version, null, 2)}\n`);
      registry.entries.push({ hash, addedAt: this.now(), origin, status, reviewedAt: status === 'proposed' ? null : this.now(), editedInto: null });
      this.saveRegistry(scenario, db, registry);
      added += 1;
    }
    return { added, known: versions.length - added };
  }

  /**
   * The vNNN.json files a `dwb playbook train --out DIR` wrote. The folder is named by a client
   * (or the CLI's user), so it is looked at and read off the main thread, and only regular files
   * in it are read: a named pipe called v001.json would otherwise stall the server.
   */
  async importDirectory(directory: string): Promise<{ added: number; known: number }> {
    const cannot = (error: unknown): WorkbenchError => new WorkbenchError(fileErrorCode(error), `Cannot import playbooks from ${directory}: ${fileErrorReason(error)}`);
    let files: string[];
    try {
      const stats = await stat(directory);
      if (!stats.isDirectory()) throw new WorkbenchError('invalid-request', `Cannot import playbooks from ${directory}: it is ${stats.isFile() ? 'a file' : nonRegularKind(stats)}, not a folder: name the folder dwb playbook train --out wrote`);
      files = (await readdir(directory)).filter((name) => /^v\d{3,}\.json$/.test(name)).sort();
    } catch (error) {
      throw error instanceof WorkbenchError ? error : cannot(error);
    }
    if (files.length === 0) throw new WorkbenchError('invalid-request', `${directory} holds no playbook versions (vNNN.json, as dwb playbook train --out writes them)`);
    const versions: PlaybookVersion[] = [];
    for (const name of files) {
      const path = join(directory, name);
      let text: string;
      try {
        text = await readRegularText(path);
      } catch (error) {
        throw new WorkbenchError(fileErrorCode(error), `Cannot import the playbook version ${path}: ${fileErrorReason(error)}`);
      }
      versions.push(parseVersionFile(text, path));
    }
    return this.add(versions);
  }

  list(): PlaybookTask[] {
    return this.taskTypes().map(({ scenario, db }) => {
      const registry = this.registry(scenario, db);
      return { scenario, db, pinned: registry.pinned, versions: registry.entries.map((entry) => this.summary(scenario, db, entry, registry.pinned)) };
    });
  }

  /** The version with this hash, or the one hash of any task type starting with `prefix` (at least 6 hex digits). */
  find(prefix: string): { version: PlaybookVersion; scenario: Scenario; db: DbKind; entry: Entry } {
    if (!/^[0-9a-f]{6,64}$/.test(prefix)) throw new WorkbenchError('invalid-request', `"${prefix}" is not a playbook version hash (6 to 64 hex digits)`);
    const matches = this.taskTypes().flatMap(({ scenario, db }) => this.registry(scenario, db).entries.filter((entry) => entry.hash.startsWith(prefix)).map((entry) => ({ scenario, db, entry })));
    if (matches.length === 0) throw new WorkbenchError('not-found', `no playbook version ${prefix} in ${this.root}`);
    if (matches.length > 1) throw new WorkbenchError('invalid-request', `${prefix} names ${matches.length} playbook versions: give more of the hash`);
    const { scenario, db, entry } = matches[0] as (typeof matches)[number];
    return { version: readVersionFile(join(this.folder(scenario, db), `${entry.hash}.json`)), scenario, db, entry };
  }

  detail(hash: string): PlaybookDetail {
    const { version, scenario, db, entry } = this.find(hash);
    const registry = this.registry(scenario, db);
    return {
      ...this.summary(scenario, db, entry, registry.pinned),
      playbook: version.playbook,
      previous: version.previous,
      diff: lineDiff(version.previous, version.playbook),
      jobs: version.jobs.map(({ questionId, success, decision, summary, flaws, revision }) => ({ questionId, success, decision, summary, flaws, revision })),
      cost: version.cost,
    };
  }

  review(hash: string, action: 'accept' | 'reject'): PlaybookVersionSummary {
    const { scenario, db, entry } = this.find(hash);
    if (entry.status === 'edited') throw new WorkbenchError('conflict', `version ${entry.hash.slice(0, 12)} was replaced by the analyst's edit ${entry.editedInto?.slice(0, 12) ?? ''}: review the edit instead`);
    const registry = this.registry(scenario, db);
    if (action === 'reject' && registry.pinned === entry.hash) throw new WorkbenchError('conflict', `version ${entry.hash.slice(0, 12)} is pinned: pin another version (or unpin) before rejecting it`);
    return this.updateEntry(scenario, db, entry.hash, { status: action === 'accept' ? 'accepted' : 'rejected', reviewedAt: this.now() });
  }

  /** The analyst's edit: a new sealed version (parent: the one edited), accepted; the edited one is marked as replaced. */
  edit(hash: string, text: string): PlaybookVersionSummary {
    const { version, scenario, db, entry } = this.find(hash);
    const playbook = text.trim();
    if (playbook === '') throw new WorkbenchError('invalid-request', 'a playbook cannot be empty');
    if (playbook === version.playbook) throw new WorkbenchError('invalid-request', 'the edit changes nothing: accept the version instead');
    const stillNamed = version.specifics.filter((name) => findSpecifics(playbook, [name], Number.isFinite(Number(name)) ? [Number(name)] : []).length > 0);
    const decisions = version.jobs.map((job) => job.decision).filter((decision): decision is string => decision !== null);
    const { hash: _hash, ...rest } = version;
    const edited = sealVersion({
      ...rest,
      parent: version.hash,
      previous: version.playbook,
      playbook,
      specifics: [...new Set([...stillNamed, ...findSpecifics(playbook, decisions, [])])].sort(),
      review: { status: 'edited', pinned: false },
    });
    this.add([edited], 'edit', 'accepted');
    this.updateEntry(scenario, db, entry.hash, { status: 'edited', reviewedAt: this.now(), editedInto: edited.hash });
    return this.summary(scenario, db, this.entry(scenario, db, edited.hash), this.registry(scenario, db).pinned);
  }

  pin(hash: string): PlaybookTask {
    const { scenario, db, entry } = this.find(hash);
    if (entry.status !== 'accepted') throw new WorkbenchError('conflict', `version ${entry.hash.slice(0, 12)} is ${entry.status}: only an accepted version can be pinned`);
    const registry = this.registry(scenario, db);
    this.saveRegistry(scenario, db, { ...registry, pinned: entry.hash });
    return this.task(scenario, db);
  }

  unpin(scenario: Scenario, db: DbKind): PlaybookTask {
    this.saveRegistry(scenario, db, { ...this.registry(scenario, db), pinned: null });
    return this.task(scenario, db);
  }

  /**
   * Deletes the playbooks of an analyst's connection task type, undoably: the folder moves,
   * whole, to <root>/.deleted/<folder>.<stamp> (which the listing ignores). Returns that name,
   * which `putBack` takes. DQA task types are not deleted this way.
   */
  setAside(scenario: Scenario, db: DbKind): string {
    if (!CONNECTION_TASK.test(scenario)) throw new WorkbenchError('invalid-request', `only the playbooks of a connection (conn-<id>) can be deleted, not ${scenario}`);
    const folder = this.folder(scenario, db);
    if (!existsSync(folder)) throw new WorkbenchError('not-found', `no playbooks for ${scenario} × ${db}`);
    const asideRoot = join(this.root, DELETED_FOLDER);
    mkdirSync(asideRoot, { recursive: true });
    const stamp = this.now().replace(/\D/g, '');
    let aside = `${scenario}-${db}.${stamp}`;
    for (let count = 2; existsSync(join(asideRoot, aside)); count++) aside = `${scenario}-${db}.${stamp}${count}`;
    renameSync(folder, join(asideRoot, aside));
    return aside;
  }

  /**
   * The deleted playbooks waiting under <root>/.deleted (the Trash view lists them): each
   * folder's name (what `putBack` takes), its task type, how many versions it holds and when it
   * was set aside (from the name's stamp).
   */
  setAsideList(): { id: string; scenario: `conn-${string}`; db: DbKind; versions: number; deletedAt: string }[] {
    const asideRoot = join(this.root, DELETED_FOLDER);
    if (!existsSync(asideRoot)) return [];
    return readdirSync(asideRoot, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((entry) => {
        const match = /^(conn-[A-Za-z0-9_-]+)-(rdb|gdb)\.(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{3})\d*$/.exec(entry.name);
        if (!match) return [];
        const [, scenario, db, year, month, day, hour, minute, second, millis] = match as unknown as [string, `conn-${string}`, DbKind, ...string[]];
        const versions = readdirSync(join(asideRoot, entry.name)).filter((name) => /^[0-9a-f]{64}\.json$/.test(name)).length;
        return [{ id: entry.name, scenario, db, versions, deletedAt: `${year}-${month}-${day}T${hour}:${minute}:${second}.${millis}Z` }];
      })
      .sort((a, b) => b.deletedAt.localeCompare(a.deletedAt));
  }

  /** Removes every set-aside folder for good (the Trash view's "Empty trash"); returns how many there were. */
  emptySetAside(): number {
    const asideRoot = join(this.root, DELETED_FOLDER);
    if (!existsSync(asideRoot)) return 0;
    const folders = readdirSync(asideRoot);
    rmSync(asideRoot, { recursive: true, force: true });
    return folders.length;
  }

  /** Undoes `setAside`: the folder comes back as it was; refused when playbooks of that task type exist again. */
  putBack(aside: string): PlaybookTask {
    const match = /^(conn-[A-Za-z0-9_-]+)-(rdb|gdb)\.\d+$/.exec(aside);
    if (!match) throw new WorkbenchError('invalid-request', `"${aside}" does not name deleted playbooks`);
    const scenario = match[1] as Scenario;
    const db = match[2] as DbKind;
    const from = join(this.root, DELETED_FOLDER, aside);
    if (!existsSync(from)) throw new WorkbenchError('not-found', `the deleted playbooks ${aside} are no longer there`);
    if (existsSync(this.folder(scenario, db))) throw new WorkbenchError('conflict', `${scenario} × ${db} has playbooks again: they are kept in ${from}`);
    renameSync(from, this.folder(scenario, db));
    return this.task(scenario, db);
  }

  /** The pinned version of a task type, or null. */
  pinned(scenario: Scenario, db: DbKind): PlaybookVersion | null {
    const registry = this.registry(scenario, db);
    return registry.pinned === null ? null : readVersionFile(join(this.folder(scenario, db), `${registry.pinned}.json`));
  }

  private task(scenario: Scenario, db: DbKind): PlaybookTask {
    return this.list().find((task) => task.scenario === scenario && task.db === db) as PlaybookTask;
  }

  private entry(scenario: Scenario, db: DbKind, hash: string): Entry {
    return this.registry(scenario, db).entries.find((entry) => entry.hash === hash) as Entry;
  }

  private updateEntry(scenario: Scenario, db: DbKind, hash: string, change: Partial<Entry>): PlaybookVersionSummary {
    const registry = this.registry(scenario, db);
    const entries = registry.entries.map((entry) => (entry.hash === hash ? { ...entry, ...change } : entry));
    this.saveRegistry(scenario, db, { ...registry, entries });
    return this.summary(scenario, db, entries.find((entry) => entry.hash === hash) as Entry, registry.pinned);
  }

  private summary(scenario: Scenario, db: DbKind, entry: Entry, pinned: string | null): PlaybookVersionSummary {
    const version = readVersionFile(join(this.folder(scenario, db), `${entry.hash}.json`));
    return {
      hash: entry.hash,
      scenario,
      db,
      index: version.index,
      parent: version.parent,
      origin: entry.origin,
      questionIds: version.batch.questionIds,
      successRate: version.successRate,
      model: version.settings.model,
      specifics: version.specifics,
      status: entry.status,
      editedInto: entry.editedInto,
      pinned: pinned === entry.hash,
      addedAt: entry.addedAt,
      reviewedAt: entry.reviewedAt,
    };
  }
}
