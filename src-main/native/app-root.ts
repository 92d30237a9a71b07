import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The folder holding package.json and resources/. Found by walking up, because this code runs
 * both from its sources (tests) and from the bundle in out/main.
 */
export function appRoot(): string {
  let directory = __dirname;
  while (!existsSync(join(directory, 'package.json')) || !existsSync(join(directory, 'resources'))) {
    const parent = dirname(directory);
    if (parent === directory) throw new Error(`Cannot find the Decision Workbench install folder above ${__dirname}`);
    directory = parent;
  }
  return directory;
}
