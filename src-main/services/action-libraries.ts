import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { ActionLibrarySummary, ActionLibraryView, EditedActionView } from '../contract/pearl';
import { WorkbenchError, fileErrorCode, fileErrorReason } from '../contract/errors';
import { readActionLibrary, seedLibrary, type ActionLibrary, type Demonstration } from '../engine/techniques/pearl/library';
import { withDemonstration } from '../engine/techniques/pearl/refine';
import { parseProgram } from '../engine/techniques/pearl/program';
import type { Environment } from '../workspace/clock';
import { readRegularText } from '../native/bounded-read';

/** What the workspace keeps of one imported library: the library as read, and where and when it came from. */
interface StoredLibrary {
  id: string;
  name: string;
  importedAt: string;
  library: ActionLibrary;
  /** The mining rounds file beside it, as it was (shown as a count; kept so nothing of the mining is lost). */
  rounds: unknown[] | null;
  /** 1 as imported; each save in the app adds one (`<id>.v<N>.json`, written once). */
  version: number;
  /** When this version was saved (the import's time for version 1) and what the analyst said of it. */
  savedAt: string;
  note: string;
  /** A library mined in the app waits for the analyst: `proposed` until accepted or rejected (`<id>.decision.json`, written once). */
  status: 'proposed' | 'accepted' | 'rejected';
}

/** A later version of a library, as its file keeps it. */
interface StoredVersion {
  id: string;
  version: number;
  savedAt: string;
  note: string;
  library: ActionLibrary;
}

const seedId = 'seed';

/**
 * Pearl's action libraries in the workspace folder (`action-libraries/<id>.json`, one file per
 * library, written once): imported from the files `dwb actions mine` writes, checked with the
 * same reader as `dwb run --actions`, listed and shown in the app, and chosen for a run. The
 * bundled seed is always listed first, as `seed`.
 *
 * Libraries are versioned: an edit in the app, or a program's new actions promoted into one,
 * is saved as the next version (`<id>.v<N>.json`, written once), so every earlier version stays
 * readable; runs plan with the latest. Editing the seed makes a new workspace library from it.
 * How often runs used each action is counted across runs in `usage.json` and added to the
 * count the library came with.
 */
export class ActionLibraryStore {
  private readonly folder: string;

  constructor(
    workspaceDir: string,
    private readonly environment: Environment,
  ) {
    this.folder = join(workspaceDir, 'action-libraries');
  }

  list(): ActionLibrarySummary[] {
    return [summaryOf(this.seed()), ...this.stored().filter((stored) => stored.status !== 'rejected').map(summaryOf)];
  }

  /** A library as the app shows it (its latest version, or the one asked for), usage counted across runs. */
  get(id: string, version?: number): ActionLibraryView {
    const latest = this.read(id);
    const stored = version === undefined || version === latest.version ? latest : this.readVersion(latest, version);
    const counted = this.usage()[id] ?? {};
    return {
      ...summaryOf(stored),
      latestVersion: latest.version,
      versions: this.history(latest),
      rounds: roundsOf(stored.rounds),
      actions: stored.library.actions.map((action) => ({ ...action, usage: action.usage + (counted[action.name] ?? 0) })),
    };
  }

  /** The library a run plans with (a mined one once the analyst accepted it). */
  library(id: string): ActionLibrary {
    const stored = this.read(id);
    if (stored.status === 'proposed') throw new WorkbenchError('invalid-request', `${stored.name} was mined and waits for review: accept it before a run plans with it`);
    return stored.library;
  }

  /** Keeps a library mined in the app, with every round, as a proposal for the analyst to accept or reject. */
  addMined(library: ActionLibrary, rounds: unknown[], note: string): ActionLibrarySummary {
    const at = this.environment.now();
    const stored: StoredLibrary = { id: `lib-${this.environment.newId()}`, name: `Mined ${at.slice(0, 10)}`, importedAt: at, library: readActionLibrary(JSON.stringify(library), 'The mined library'), rounds, version: 1, savedAt: at, note, status: 'proposed' };
    mkdirSync(this.folder, { recursive: true });
    writeFileSync(join(this.folder, `${stored.id}.json`), `${JSON.stringify(stored, null, 2)}\n`, { flag: 'wx' });
    return summaryOf(stored);
  }

  /** The analyst's verdict on a mined library: accepted, it is chosen like any other; rejected, it leaves the list (its file stays). */
  decide(id: string, accept: boolean): ActionLibrarySummary {
    const stored = this.read(id);
    if (stored.status !== 'proposed') throw new WorkbenchError('conflict', `${stored.name} is not waiting for review (it is ${stored.status})`);
    writeFileSync(join(this.folder, `${id}.decision.json`), `${JSON.stringify({ id, status: accept ? 'accepted' : 'rejected', at: this.environment.now() }, null, 2)}\n`, { flag: 'wx' });
    return summaryOf({ ...stored, status: accept ? 'accepted' : 'rejected' });
  }

  /**
   * Imports the library file a client names. It is read off the main thread and only if it is a
   * regular file (a named pipe or a device would stall every client of the server), as is the
   * mining rounds file beside it.
   */
  async import(path: string): Promise<ActionLibrarySummary> {
    let text: string;
    try {
      text = await readRegularText(path);
    } catch (error) {
      throw new WorkbenchError(fileErrorCode(error), `Could not read ${path}: ${fileErrorReason(error)}`);
    }
    const library = readActionLibrary(text, basename(path));
    const roundsPath = `${path.replace(/\.json$/, '')}.rounds.json`;
    const rounds = roundsPath !== path ? await readRounds(roundsPath) : null;
    const importedAt = this.environment.now();
    const stored: StoredLibrary = { id: `lib-${this.environment.newId()}`, name: basename(path), importedAt, library, rounds, version: 1, savedAt: importedAt, note: 'imported', status: 'accepted' };
    mkdirSync(this.folder, { recursive: true });
    writeFileSync(join(this.folder, `${stored.id}.json`), `${JSON.stringify(stored, null, 2)}\n`, { flag: 'wx' });
    return summaryOf(stored);
  }

  /**
   * Saves the analyst's edit of a library's actions as its next version: an action keeps the
   * usage and origin it had under its name, a new one is the analyst's. Editing the seed makes a
   * new workspace library. The whole library is checked as a file would be before anything is written.
   */
  save(id: string, actions: readonly EditedActionView[], note: string): ActionLibrarySummary {
    const base = this.read(id);
    const before = new Map(base.library.actions.map((action) => [action.name, action]));
    const library = readActionLibrary(
      JSON.stringify({
        ...base.library,
        actions: actions.map((action) => ({
          name: action.name.trim(),
          params: action.params.map((param) => param.trim()),
          ...(action.variadic ? { variadic: true } : {}),
          definition: action.definition,
          usage: before.get(action.name.trim())?.usage ?? 0,
          provenance: before.get(action.name.trim())?.provenance ?? 'analyst',
        })),
      }),
      `The edited library ${base.name}`,
    );
    return this.nextVersion(base, library, note.trim() || 'edited in the app');
  }

  /**
   * Promotes the new actions a program defines into a library (the paper keeps them local to
   * the program; here the analyst chooses to keep them): the next version with them added.
   */
  promote(id: string, program: string, runId: string): ActionLibrarySummary {
    const base = this.read(id);
    const parsed = parseProgram(program, base.library.actions.map((action) => ({ name: action.name, params: action.params, ...(action.variadic ? { variadic: true } : {}) })));
    if (!parsed.ok) throw new WorkbenchError('invalid-request', `The program does not parse against ${base.name}: ${parsed.errors[0]?.message ?? 'unreadable'}`);
    const fresh = parsed.program.newActions.filter((action) => !base.library.actions.some((known) => known.name === action.name));
    if (fresh.length === 0) throw new WorkbenchError('invalid-request', `The program defines no action that ${base.name} lacks`);
    const library: ActionLibrary = {
      ...base.library,
      actions: [...base.library.actions, ...fresh.map((action) => ({ name: action.name, params: action.params, definition: action.definition, usage: 0, provenance: `analyst: promoted from ${runId}` }))],
    };
    return this.nextVersion(base, readActionLibrary(JSON.stringify(library), 'The promoted library'), `promoted ${fresh.map((action) => action.name).join(', ')} from ${runId}`);
  }

  /** Keeps refined demonstrations (refine.ts) in a library as its next version; each replaces an older one of its question. */
  refine(id: string, demonstrations: readonly Demonstration[], note: string): ActionLibrarySummary {
    const base = this.read(id);
    const library = demonstrations.reduce(withDemonstration, base.library);
    return this.nextVersion(base, readActionLibrary(JSON.stringify(library), 'The refined library'), note);
  }

  /** Counts a run's calls of library actions (its executed steps) toward the library's usage. */
  recordUsage(id: string, actionsCalled: readonly string[]): void {
    if (actionsCalled.length === 0) return;
    const usage = this.usage();
    const counts = (usage[id] ??= {});
    for (const name of actionsCalled) counts[name] = (counts[name] ?? 0) + 1;
    mkdirSync(this.folder, { recursive: true });
    const file = join(this.folder, 'usage.json');
    writeFileSync(`${file}.tmp`, `${JSON.stringify(usage, null, 2)}\n`);
    renameSync(`${file}.tmp`, file);
  }

  private nextVersion(base: StoredLibrary, library: ActionLibrary, note: string): ActionLibrarySummary {
    mkdirSync(this.folder, { recursive: true });
    if (base.id === seedId) {
      const created: StoredLibrary = { id: `lib-${this.environment.newId()}`, name: 'Seed library (edited)', importedAt: this.environment.now(), library, rounds: null, version: 1, savedAt: this.environment.now(), note, status: 'accepted' };
      writeFileSync(join(this.folder, `${created.id}.json`), `${JSON.stringify(created, null, 2)}\n`, { flag: 'wx' });
      return summaryOf(created);
    }
    const saved: StoredVersion = { id: base.id, version: base.version + 1, savedAt: this.environment.now(), note, library };
    writeFileSync(join(this.folder, `${base.id}.v${saved.version}.json`), `${JSON.stringify(saved, null, 2)}\n`, { flag: 'wx' });
    return summaryOf({ ...base, ...saved });
  }

  /** A mined library's verdict, if the analyst gave one. */
  private decision(id: string): StoredLibrary['status'] {
    try {
      const value = JSON.parse(readFileSync(join(this.folder, `${id}.decision.json`), 'utf8')) as { status?: unknown };
      return value.status === 'accepted' || value.status === 'rejected' ? value.status : 'proposed';
    } catch {
      return 'proposed';
    }
  }

  private usage(): Record<string, Record<string, number>> {
    try {
      const value = JSON.parse(readFileSync(join(this.folder, 'usage.json'), 'utf8')) as unknown;
      return typeof value === 'object' && value !== null ? (value as Record<string, Record<string, number>>) : {};
    } catch {
      return {};
    }
  }

  /** Every later version of a stored library that still reads, oldest first. */
  private versions(id: string): StoredVersion[] {
    if (id === seedId || !existsSync(this.folder)) return [];
    const pattern = new RegExp(`^${id.replace(/[^A-Za-z0-9-]/g, '')}\\.v(\\d+)\\.json$`);
    return readdirSync(this.folder)
      .filter((file) => pattern.test(file))
      .flatMap((file) => {
        try {
          const raw = JSON.parse(readFileSync(join(this.folder, file), 'utf8')) as Partial<StoredVersion>;
          if (raw.id !== id || typeof raw.version !== 'number' || typeof raw.savedAt !== 'string') return [];
          return [{ id, version: raw.version, savedAt: raw.savedAt, note: typeof raw.note === 'string' ? raw.note : '', library: readActionLibrary(JSON.stringify(raw.library), file) }];
        } catch {
          return [];
        }
      })
      .sort((a, b) => a.version - b.version);
  }

  private history(latest: StoredLibrary): { version: number; savedAt: string | null; note: string; actionCount: number }[] {
    if (latest.id === seedId) return [{ version: 1, savedAt: null, note: 'bundled', actionCount: latest.library.actions.length }];
    const first = this.readFirst(latest.id);
    return [first, ...this.versions(latest.id)].map((entry) => ({ version: entry.version, savedAt: entry.savedAt, note: entry.note, actionCount: entry.library.actions.length }));
  }

  private readVersion(latest: StoredLibrary, version: number): StoredLibrary {
    if (version === 1 && latest.id !== seedId) return this.readFirst(latest.id);
    const found = this.versions(latest.id).find((entry) => entry.version === version);
    if (!found) throw new WorkbenchError('not-found', `${latest.name} has no version ${version}`);
    return { ...latest, ...found };
  }

  private readFirst(id: string): StoredLibrary {
    const found = this.imported().find((stored) => stored.id === id);
    if (!found) throw new WorkbenchError('not-found', `There is no action library ${id} in this workspace`);
    return found;
  }

  private seed(): StoredLibrary {
    return { id: seedId, name: 'Seed library', importedAt: '', library: seedLibrary(), rounds: null, version: 1, savedAt: '', note: 'bundled', status: 'accepted' };
  }

  private read(id: string): StoredLibrary {
    if (id === seedId) return this.seed();
    const found = /^lib-[A-Za-z0-9-]+$/.test(id) ? this.stored().find((stored) => stored.id === id) : undefined;
    if (!found) throw new WorkbenchError('not-found', `There is no action library ${id} in this workspace`);
    return found;
  }

  /** Every stored library at its latest version. */
  private stored(): StoredLibrary[] {
    return this.imported().map((first) => {
      const latest = this.versions(first.id).at(-1);
      return latest ? { ...first, ...latest } : first;
    });
  }

  /** Every stored library as imported (version 1) that still reads; a damaged file is skipped rather than hiding the others. */
  private imported(): StoredLibrary[] {
    if (!existsSync(this.folder)) return [];
    return readdirSync(this.folder)
      .filter((file) => /^lib-[A-Za-z0-9-]+\.json$/.test(file))
      .flatMap((file) => {
        try {
          const raw = JSON.parse(readFileSync(join(this.folder, file), 'utf8')) as Partial<StoredLibrary>;
          if (typeof raw.id !== 'string' || typeof raw.name !== 'string' || typeof raw.importedAt !== 'string') return [];
          const library = readActionLibrary(JSON.stringify(raw.library), file);
          return [{ id: raw.id, name: raw.name, importedAt: raw.importedAt, library, rounds: Array.isArray(raw.rounds) ? raw.rounds : null, version: 1, savedAt: typeof raw.savedAt === 'string' ? raw.savedAt : raw.importedAt, note: typeof raw.note === 'string' ? raw.note : 'imported', status: raw.status === 'proposed' ? this.decision(raw.id) : 'accepted' }];
        } catch {
          return [];
        }
      })
      .sort((a, b) => a.importedAt.localeCompare(b.importedAt));
  }
}

/** The mining rounds file beside an imported library, or null when there is none (or it is no rounds file: the rounds are extra). */
async function readRounds(path: string): Promise<unknown[] | null> {
  try {
    const value = JSON.parse(await readRegularText(path)) as { format?: unknown; rounds?: unknown };
    return value.format === 'decision-workbench/pearl-mining-rounds' && Array.isArray(value.rounds) ? value.rounds : null;
  } catch {
    return null;
  }
}

/** What the library view shows of each mining round: sizes and what merged into what. */
function roundsOf(rounds: unknown[] | null): { round: number; kind: string; before: number; after: number; merges: { into: string; from: string[] }[] }[] {
  return (rounds ?? []).flatMap((value) => {
    const round = value as { round?: unknown; kind?: unknown; before?: unknown; after?: unknown; merges?: unknown };
    if (typeof round.round !== 'number' || typeof round.before !== 'number' || typeof round.after !== 'number') return [];
    const merges = Array.isArray(round.merges) ? (round.merges as { into?: unknown; from?: unknown }[]).filter((merge): merge is { into: string; from: string[] } => typeof merge.into === 'string' && Array.isArray(merge.from)) : [];
    return [{ round: round.round, kind: typeof round.kind === 'string' ? round.kind : '', before: round.before, after: round.after, merges }];
  });
}

function summaryOf(stored: StoredLibrary): ActionLibrarySummary {
  const { library } = stored;
  return {
    id: stored.id,
    name: stored.name,
    scenario: library.scenario,
    schema: library.schema,
    actionCount: library.actions.length,
    demonstrationCount: library.demonstrations.length,
    roundCount: stored.rounds?.length ?? 0,
    importedAt: stored.importedAt || null,
    builtIn: stored.id === seedId,
    version: stored.version,
    status: stored.status,
  };
}
