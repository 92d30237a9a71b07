#!/usr/bin/env node
'use strict';
// The CLI is bundled by electron-vite into out/main (npm install runs the build).
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const entry = join(__dirname, '..', 'out', 'main', 'cli.js');
if (!existsSync(entry)) {
  process.stderr.write('dwb: the app is not built yet: run "npm install" (or "npm run build") in the Decision Workbench folder\n');
  process.exit(1);
}
require(entry).main();
