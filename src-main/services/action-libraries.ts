import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { ActionLibrarySummary, ActionLibraryView } from '../contract/pearl';
import { WorkbenchError } from '../contract/errors';
import { readActionLibrary, seedLibrary, type ActionLibrary } from '../engine/techniques/pearl/library';
import type { Environment } from '../workspace/clock';

/** What the workspace keeps of one imported library: the library as read, and where and when it came from. */
interface StoredLibrary {
  id: string;
  name: string;
  importedAt: string;
  library: ActionLibrary;
  /** The mining rounds file beside it, as it was (shown as a count; kept so nothing of the mining is lost). */
  rounds: unknown[] | null;
}

const seedId = 'seed';

/**
 * Pearl's action libraries in the workspace folder (`action-libraries/<id>.json`, one file per
 * library, written once): imported from the files `dwb actions mine` writes, checked with the
 * same reader as `dwb run --actions`, listed and shown in the app, and chosen for a run. The
 * bundled seed is always listed first, as `seed`.
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
    return [summaryOf(this.seed()), ...this.stored().map(summaryOf)];
  }

  get(id: string): ActionLibraryView {
    const stored = this.read(id);
    return { ...summaryOf(stored), actions: stored.library.actions };
  }

  /** The library a run plans with. */
  library(id: string): ActionLibrary {
    return this.read(id).library;
  }

  import(path: string): ActionLibrarySummary {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new WorkbenchError('not-found', `Could not read ${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'there is no such file' : (error as Error).message}`);
    }
    const library = readActionLibrary(text, basename(path));
    const roundsPath = `${path.replace(/\.json$/, '')}.rounds.json`;
    const rounds = roundsPath !== path && existsSync(roundsPath) ? readRounds(roundsPath) : null;
    const stored: StoredLibrary = { id: `lib-${this.environment.newId()}`, name: basename(path), importedAt: this.environment.now(), library, rounds };
    mkdirSync(this.folder, { recursive: true });
    writeFileSync(join(this.folder, `${stored.id}.json`), `${JSON.stringify(stored, null, 2)}\n`, { flag: 'wx' });
    return summaryOf(stored);
  }

  private seed(): StoredLibrary {
    return { id: seedId, name: 'Seed library', importedAt: '', library: seedLibrary(), rounds: null };
  }

  private read(id: string): StoredLibrary {
    if (id === seedId) return this.seed();
    const found = /^lib-[A-Za-z0-9-]+$/.test(id) ? this.stored().find((stored) => stored.id === id) : undefined;
    if (!found) throw new WorkbenchError('not-found', `There is no action library ${id} in this workspace`);
    return found;
  }

  /** Every stored library that still reads; a damaged file is skipped rather than hiding the others. */
  private stored(): StoredLibrary[] {
    if (!existsSync(this.folder)) return [];
    return readdirSync(this.folder)
      .filter((file) => /^lib-[A-Za-z0-9-]+\.json$/.test(file))
      .flatMap((file) => {
        try {
          const raw = JSON.parse(readFileSync(join(this.folder, file), 'utf8')) as Partial<StoredLibrary>;
          if (typeof raw.id !== 'string' || typeof raw.name !== 'string' || typeof raw.importedAt !== 'string') return [];
          const library = readActionLibrary(JSON.stringify(raw.library), file);
          return [{ id: raw.id, name: raw.name, importedAt: raw.importedAt, library, rounds: Array.isArray(raw.rounds) ? raw.rounds : null }];
        } catch {
          return [];
        }
      })
      .sort((a, b) => a.importedAt.localeCompare(b.importedAt));
  }
}

function readRounds(path: string): unknown[] | null {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as { format?: unknown; rounds?: unknown };
    return value.format === 'decision-workbench/pearl-mining-rounds' && Array.isArray(value.rounds) ? value.rounds : null;
  } catch {
    return null;
  }
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
  };
}
