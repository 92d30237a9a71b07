import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach } from 'vitest';

/** A fresh folder per call, removed after the test that asked for it. */
export function useTempDirs(): () => string {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), 'dwb-test-'));
    made.push(dir);
    return dir;
  };
}

/** One folder for a whole test file (for fixtures built once in beforeAll), removed after it. */
export function useSuiteTempDir(): () => string {
  let dir: string | null = null;
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    dir ??= mkdtempSync(join(tmpdir(), 'dwb-suite-'));
    return dir;
  };
}
