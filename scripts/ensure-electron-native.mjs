#!/usr/bin/env node
// Builds better-sqlite3 for Electron's ABI into native/electron-<version>/, once per Electron
// version, so the desktop app can open SQLite files while the Node build in node_modules keeps
// serving the CLI, browser mode and the tests. Tries the project's prebuilt binary for Electron
// first (prebuild-install), then compiles from source with node-gyp against Electron's headers.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const electronVersion = JSON.parse(readFileSync(require.resolve('electron/package.json'), 'utf8')).version;
const target = join(root, 'native', `electron-${electronVersion}`, 'better_sqlite3.node');

if (existsSync(target)) process.exit(0);

const packageDir = dirname(require.resolve('better-sqlite3/package.json'));
const work = mkdtempSync(join(tmpdir(), 'dwb-electron-native-'));
const copy = join(work, 'better-sqlite3');
cpSync(packageDir, copy, { recursive: true, filter: (path) => !path.includes(`${join(packageDir, 'build')}`) });
const built = join(copy, 'build', 'Release', 'better_sqlite3.node');
const run = (command, args) => execFileSync(command, args, { cwd: copy, stdio: 'inherit', env: process.env });

console.error(`Preparing better-sqlite3 for Electron ${electronVersion} (once per Electron version)…`);
try {
  run(process.execPath, [require.resolve('prebuild-install/bin.js'), '--runtime', 'electron', '--target', electronVersion]);
} catch {
  console.error('No prebuilt binary for this platform; compiling from source with node-gyp…');
  // npm ships node-gyp and names it in npm_config_node_gyp while it runs a script.
  const npmsOwn = process.env.npm_execpath ? join(dirname(process.env.npm_execpath), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js') : '';
  const nodeGyp = process.env.npm_config_node_gyp ?? npmsOwn;
  if (!nodeGyp || !existsSync(nodeGyp)) {
    console.error('node-gyp not found: run this through npm ("npm start"), or see docs/troubleshooting.md.');
    process.exit(1);
  }
  run(process.execPath, [nodeGyp, 'rebuild', '--release', `--target=${electronVersion}`, '--runtime=electron', '--dist-url=https://electronjs.org/headers']);
}
if (!existsSync(built)) {
  console.error(`Could not build better-sqlite3 for Electron ${electronVersion}: see docs/troubleshooting.md.`);
  process.exit(1);
}
mkdirSync(dirname(target), { recursive: true });
cpSync(built, target);
rmSync(work, { recursive: true, force: true });
console.error(`Built ${target}`);
