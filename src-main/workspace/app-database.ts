import type Database from 'better-sqlite3';
import { openSqliteFile } from '../native/better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { WorkbenchError, fileErrorReason } from '../contract/errors';

export type AppDatabase = Database.Database;

/**
 * Schema migrations, applied in order and recorded in `user_version`. Never edit a shipped
 * step: append a new one, so every existing workspace upgrades the same way.
 */
const migrations: string[] = [
  `CREATE TABLE connections (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     engine TEXT NOT NULL,
     target TEXT NOT NULL,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL,
     deleted_at TEXT
   );
   CREATE TABLE notebooks (
     id TEXT PRIMARY KEY,
     title TEXT NOT NULL,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL,
     deleted_at TEXT
   );
   CREATE TABLE cells (
     id TEXT PRIMARY KEY,
     notebook_id TEXT NOT NULL REFERENCES notebooks(id),
     position INTEGER NOT NULL,
     kind TEXT NOT NULL,
     author TEXT NOT NULL,
     source TEXT NOT NULL,
     connection_id TEXT,
     settings TEXT NOT NULL,
     provenance TEXT NOT NULL,
     data TEXT NOT NULL,
     output TEXT,
     created_at TEXT NOT NULL,
     updated_at TEXT NOT NULL,
     deleted_at TEXT
   );
   CREATE INDEX cells_by_notebook ON cells(notebook_id, position);
   CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);`,
  `CREATE TABLE runs (
     id TEXT PRIMARY KEY,
     notebook_id TEXT NOT NULL REFERENCES notebooks(id),
     connection_id TEXT,
     technique TEXT NOT NULL,
     mode TEXT NOT NULL,
     status TEXT NOT NULL,
     question TEXT NOT NULL,
     decision TEXT,
     message TEXT,
     created_at TEXT NOT NULL,
     ended_at TEXT
   );
   CREATE INDEX runs_by_notebook ON runs(notebook_id, created_at);
   CREATE TABLE run_events (
     run_id TEXT NOT NULL REFERENCES runs(id),
     seq INTEGER NOT NULL,
     at TEXT NOT NULL,
     event TEXT NOT NULL,
     prev_hash TEXT NOT NULL,
     hash TEXT NOT NULL,
     PRIMARY KEY (run_id, seq)
   );
   CREATE TABLE run_transcripts (
     run_id TEXT NOT NULL REFERENCES runs(id),
     seq INTEGER NOT NULL,
     line TEXT NOT NULL,
     PRIMARY KEY (run_id, seq)
   );
   CREATE TABLE secrets (key TEXT PRIMARY KEY, value BLOB NOT NULL);`,
  // What the run was started with, so a run interrupted by an app stop can be resumed.
  `ALTER TABLE runs ADD COLUMN request TEXT;`,
  // Where a live run stood just before its latest model call, so a run killed during that call resumes with it.
  `ALTER TABLE runs ADD COLUMN checkpoint TEXT;`,
  // Technique benchmarks started from the app; their question runs live in <workspace>/benchmarks/<id>/.
  `CREATE TABLE benchmarks (
     id TEXT PRIMARY KEY,
     spec TEXT NOT NULL,
     model TEXT NOT NULL,
     status TEXT NOT NULL,
     progress TEXT NOT NULL,
     message TEXT,
     created_at TEXT NOT NULL,
     ended_at TEXT
   );`,
  // GGUF model files the analyst added (the files stay where they are; this is only the list).
  `CREATE TABLE local_models (
     id TEXT PRIMARY KEY,
     path TEXT NOT NULL UNIQUE,
     info TEXT NOT NULL,
     added_at TEXT NOT NULL
   );`,
  // Plain-text documents the analyst attaches to a notebook (DeLLMa reads them into its context); they go with the notebook.
  `CREATE TABLE notebook_documents (
     id TEXT PRIMARY KEY,
     notebook_id TEXT NOT NULL REFERENCES notebooks(id) ON DELETE CASCADE,
     name TEXT NOT NULL,
     text TEXT NOT NULL,
     bytes INTEGER NOT NULL,
     sha256 TEXT NOT NULL,
     added_at TEXT NOT NULL
   );
   CREATE INDEX documents_by_notebook ON notebook_documents(notebook_id, added_at);`,
  // A removed document goes to the trash (restorable) like a cell, instead of being deleted at once.
  `ALTER TABLE notebook_documents ADD COLUMN deleted_at TEXT;`,
  // Removing a connection forgets its password; the trash says so only when there was one.
  `ALTER TABLE connections ADD COLUMN password_forgotten INTEGER NOT NULL DEFAULT 0;`,
  // Every query a query cell ran, per connection (query-history-store.ts): searchable and re-openable as a cell.
  `CREATE TABLE query_history (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     connection_id TEXT NOT NULL,
     text TEXT NOT NULL,
     ran_at TEXT NOT NULL,
     duration_ms REAL NOT NULL,
     row_count INTEGER,
     error_code TEXT,
     notebook_id TEXT,
     cell_id TEXT
   );
   CREATE INDEX query_history_by_connection ON query_history(connection_id, seq);`,
  // Who made a run's decision (issue 25): the run history names the decider (a fallback, a tool-assisted decision), not only the technique started.
  `ALTER TABLE runs ADD COLUMN decided_by TEXT;`,
  // How the decision was checked (issue 25): the run histories say the simulator's verdict or "not checked: <reason>", not a bare "Decided".
  `ALTER TABLE runs ADD COLUMN decision_check TEXT;`,
];

/**
 * Opens (creating if needed) the workspace's own database. WAL with synchronous=FULL makes
 * every committed edit survive a killed process or a power cut; a crash mid-write leaves the
 * last committed state intact.
 */
export function openAppDatabase(workspaceDir: string): AppDatabase {
  makeWorkspaceFolder(workspaceDir);
  const path = join(workspaceDir, 'workspace.sqlite');
  let database: AppDatabase | undefined;
  try {
    database = openSqliteFile(path);
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = FULL');
    database.pragma('foreign_keys = ON');
    database.pragma('busy_timeout = 5000');
    migrate(database);
    return database;
  } catch (error) {
    database?.close();
    if (error instanceof WorkbenchError) throw error;
    // e.g. "file is not a database" (another program's file, or a damaged one), "unable to open database file".
    throw new WorkbenchError('invalid-request', `Cannot open the workspace database ${path}: ${fileErrorReason(error)}`, { cause: error });
  }
}

/** The workspace folder, made if it does not exist; a file or an unwritable place in its stead is said in words. */
function makeWorkspaceFolder(workspaceDir: string): void {
  try {
    mkdirSync(workspaceDir, { recursive: true });
  } catch (error) {
    // mkdir's EEXIST here means something other than a folder stands at that path.
    if ((error as { code?: unknown }).code === 'EEXIST') throw new WorkbenchError('invalid-request', `The workspace ${workspaceDir} is a file, not a folder: name a folder for the workspace`, { cause: error });
    throw new WorkbenchError('invalid-request', `Cannot make the workspace folder ${workspaceDir}: ${fileErrorReason(error)}`, { cause: error });
  }
}

function migrate(database: AppDatabase): void {
  const current = database.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new WorkbenchError(
      'unsupported',
      `This workspace was written by a newer Decision Workbench (schema ${current}, this version knows ${migrations.length}). Update the app to open it.`,
    );
  }
  for (let version = current; version < migrations.length; version++) {
    database.transaction(() => {
      database.exec(migrations[version] as string);
      database.pragma(`user_version = ${version + 1}`);
    })();
  }
}
