/**
 * What a source of scenario databases gives `dqa solve`, whichever way it reads them: dumps
 * parsed in memory (dump-databases.ts) or databases read through an engine's connector
 * (scenario-databases.ts).
 */
import type { DqaScenario } from './dataset';
import type { LoadedScenario } from './prepared-scenario';

export type DbKind = 'rdb' | 'gdb';

export interface LoadedDatabase extends LoadedScenario {
  /** How the data was read, e.g. `sqlite (imported from db/USA1836.sql)`. */
  via: string;
  /** Import (if any) plus reading and indexing. */
  loadMs: number;
}

export interface ScenarioDatabases {
  /** `dump` is a question's `rdb`/`gdb` value, relative to the questions file's folder. */
  load(dump: string): Promise<LoadedDatabase>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  scenario: DqaScenario;
  db: DbKind;
  baseDir: string;
  /** Progress lines (stderr in the CLI). */
  progress?: (line: string) => void;
}
