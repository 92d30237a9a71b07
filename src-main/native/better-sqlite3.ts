import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { appRoot } from './app-root';

/**
 * better-sqlite3 is a native module, built for one ABI at a time. `npm install` builds it for
 * Node (the CLI, browser mode and the tests); the desktop app runs under Electron's ABI, so
 * `npm start` first builds a second copy into native/ (scripts/ensure-electron-native.mjs)
 * and Electron processes load that one. Both builds live side by side: no rebuild back and
 * forth between `npm start` and `npm test`.
 */
export function electronBindingPath(root: string, electronVersion: string): string {
  return join(root, 'native', `electron-${electronVersion}`, 'better_sqlite3.node');
}

function nativeBinding(): string | undefined {
  const electronVersion = process.versions.electron;
  if (!electronVersion) return undefined;
  const path = electronBindingPath(appRoot(), electronVersion);
  if (!existsSync(path)) {
    throw new Error(`better-sqlite3 is not built for Electron ${electronVersion}: run "npm start" (it builds ${path}) or see docs/troubleshooting.md`);
  }
  return path;
}

/** Opens a SQLite file with the build of better-sqlite3 that matches this runtime. */
export function openSqliteFile(path: string, options: Database.Options = {}): Database.Database {
  const binding = nativeBinding();
  return new Database(path, binding ? { ...options, nativeBinding: binding } : options);
}
