import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

import { WorkbenchError } from '../../../src-main/contract/errors';
import { openLadybugConnector } from '../../../src-main/connectors/ladybug';
import { repoRoot } from '../../support/fixtures';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();

/** Opening fails; the error it fails with. */
async function refusal(path: string): Promise<WorkbenchError> {
  const outcome = await openLadybugConnector({ path, bufferPoolBytes: 64 * 1024 * 1024 }).then(
    async (connector) => {
      await connector.close();
      return null;
    },
    (error: unknown) => error,
  );
  expect(outcome, 'LadybugDB should not open a database written by Kùzu').toBeInstanceOf(WorkbenchError);
  return outcome as WorkbenchError;
}

describe('a database written by Kùzu', () => {
  it('a Kùzu 0.11 file: says what it is and how to convert it, and leaves it unchanged', async () => {
    const bytes = gunzipSync(readFileSync(join(repoRoot, 'fixtures', 'kuzu-0.11', 'item.kuzu.gz')));
    const path = join(tempDir(), 'item.kuzu');
    writeFileSync(path, bytes);

    const error = await refusal(path);
    expect(error.code).toBe('unsupported');
    expect(error.message).toBe(
      `${path} is a database written by Kùzu 0.11 (storage version 39), which LadybugDB (the embedded graph engine that continues Kùzu) cannot open. ` +
        `Convert it once: open it with that Kùzu release and run EXPORT DATABASE '<folder>', then run IMPORT DATABASE '<folder>' ` +
        `in a new LadybugDB database and connect to that one (step by step: docs/data-sources.md, "Databases written by Kùzu").`,
    );
    // The engine's own verdict, which the message replaces: LadybugDB checks the file's magic bytes.
    expect(String((error.cause as Error | undefined)?.message)).toContain('The file is not a valid Lbug database file');
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });

  it('a Kùzu 0.10 database folder: says what it is and how to convert it', async () => {
    const folder = join(tempDir(), 'old.kuzu');
    mkdirSync(folder);
    writeFileSync(join(folder, 'catalog.kz'), Buffer.alloc(64));
    const error = await refusal(folder);
    expect(error.code).toBe('unsupported');
    expect(error.message).toMatch(/^\S+ is a database written by Kùzu 0\.10 or earlier \(a database folder\), which LadybugDB .* cannot open\. Convert it once: .*EXPORT DATABASE .*IMPORT DATABASE /);
    expect(String((error.cause as Error | undefined)?.message)).toContain('Database path cannot be a directory');
  });

  it('any other folder keeps the engine its own words', async () => {
    const folder = join(tempDir(), 'not-a-database');
    mkdirSync(folder);
    const error = await refusal(folder);
    expect(error.code).toBe('connection-failed');
    expect(error.message).toContain('Database path cannot be a directory');
  });
});
