#!/usr/bin/env node
// Links this checkout's own `dwb` into node_modules/.bin after `npm install`. A package.json
// "bin" field would not do: npx runs a project's own bin by installing the whole checkout into
// its cache (a copy and a full rebuild, about 100 s before the first line). With no "bin" field
// and this link, npx finds dwb among the local bins and runs bin/dwb.js at once.
import { chmodSync, existsSync, lstatSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const binDir = join(root, 'node_modules', '.bin');
if (!existsSync(join(root, 'node_modules'))) process.exit(0);
mkdirSync(binDir, { recursive: true });

const link = join(binDir, 'dwb');
const removeOld = (path) => {
  try {
    lstatSync(path);
    rmSync(path, { force: true });
  } catch {
    // Nothing there yet.
  }
};

if (process.platform === 'win32') {
  // Windows runs bins through a .cmd shim, as npm writes them for dependencies.
  removeOld(`${link}.cmd`);
  writeFileSync(`${link}.cmd`, '@node "%~dp0\\..\\..\\bin\\dwb.js" %*\r\n');
} else {
  removeOld(link);
  symlinkSync(join('..', '..', 'bin', 'dwb.js'), link);
  chmodSync(join(root, 'bin', 'dwb.js'), 0o755);
}
