#!/usr/bin/env node
// Checks, before `npm start` builds anything, that Electron's runtime is on this machine. The
// electron package downloads it on first launch; where that cannot happen (an offline machine)
// electron-vite used to build the app and then end with a bare "Error: Electron uninstall".
// Here a missing runtime is downloaded once, with a line saying so, or the start stops at once
// with one line saying why and what to do instead.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Tests point this at a copy of the electron package; everyone else uses the installed one.
const electronDir = process.env.DWB_ELECTRON_PACKAGE_DIR ?? dirname(createRequire(join(root, 'package.json')).resolve('electron/package.json'));

/** The runtime's executable, or null while it is not installed (the same places electron's own index.js looks). */
function installedRuntime() {
  const pathFile = join(electronDir, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const relative = readFileSync(pathFile, 'utf8').trim();
  const base = process.env.ELECTRON_OVERRIDE_DIST_PATH ?? join(electronDir, 'dist');
  const executable = join(base, relative);
  return relative && existsSync(executable) ? executable : null;
}

function fail(reason) {
  console.error(
    `npm start: Electron's runtime is not installed and could not be downloaded (${reason}). ` +
      'With network access run "node node_modules/electron/install.js", then "npm start" again; ' +
      'or use the same app in your browser: "npx dwb serve" (docs/browser-mode.md).',
  );
  process.exit(1);
}

if (!installedRuntime()) {
  if (process.env.ELECTRON_OVERRIDE_DIST_PATH) fail(`ELECTRON_OVERRIDE_DIST_PATH=${process.env.ELECTRON_OVERRIDE_DIST_PATH} holds no Electron executable`);
  const version = JSON.parse(readFileSync(join(electronDir, 'package.json'), 'utf8')).version;
  console.error(`Downloading Electron ${version}'s runtime (about 100 MB, once)…`);
  const download = spawnSync(process.execPath, [join(electronDir, 'install.js')], { cwd: electronDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (download.status !== 0 || !installedRuntime()) {
    // The downloader's own report is a stack trace; its first line that says something is the reason.
    const said = `${download.stderr ?? ''}\n${download.stdout ?? ''}`
      .split('\n')
      .map((line) => line.trim())
      .find((line) => /error|fail|ENOTFOUND|ECONNREFUSED|EAI_AGAIN|timed? ?out/i.test(line));
    fail(said ? said.replace(/^Error:\s*/, '').slice(0, 200) : `the downloader exited with ${download.status ?? download.signal}`);
  }
}
