/**
 * File paths as users type or paste them: `~/…` is the home folder and a `file://` URL is the
 * file it names, in the connection form (normalizeTarget) and in CLI URIs alike, never a path
 * under the server's working folder. Real files, so the saved path is one that exists.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { parseConnectionUri } from '../../../src-main/connectors/connection-uri';
import { normalizeTarget } from '../../../src-main/connectors/target-check';
import { resolveUserPath } from '../../../src-main/connectors/user-path';

describe('resolveUserPath', () => {
  const where = { home: '/home/ana', cwd: '/srv/app' };

  it('expands a leading ~/ (or a lone ~) to the home folder', () => {
    expect(resolveUserPath('~/data/x.sqlite', where)).toBe('/home/ana/data/x.sqlite');
    expect(resolveUserPath('~', where)).toBe('/home/ana');
    expect(resolveUserPath('~/', where)).toBe('/home/ana/');
  });

  it('reads a file:// URL as the local path it names, escapes decoded', () => {
    expect(resolveUserPath('file:///tmp/x.sqlite', where)).toBe('/tmp/x.sqlite');
    expect(resolveUserPath('file:///tmp/my%20data.sqlite', where)).toBe('/tmp/my data.sqlite');
    expect(resolveUserPath('FILE://localhost/tmp/x.duckdb', where)).toBe('/tmp/x.duckdb');
  });

  it('refuses a file URL of another host instead of making a path of it', () => {
    expect(() => resolveUserPath('file://fileserver/share/x.sqlite', where)).toThrow(
      expect.objectContaining({ code: 'invalid-request', message: expect.stringMatching(/^file:\/\/fileserver\/share\/x\.sqlite is not a file URL of this machine: /) }),
    );
  });

  it('keeps absolute paths, resolves other relative ones (~ inside a name too) from the working folder', () => {
    expect(resolveUserPath('/data/x.sqlite', where)).toBe('/data/x.sqlite');
    expect(resolveUserPath('data/x.sqlite', where)).toBe('/srv/app/data/x.sqlite');
    expect(resolveUserPath('~ana/x.sqlite', where)).toBe('/srv/app/~ana/x.sqlite');
    expect(resolveUserPath('a~/x.sqlite', where)).toBe('/srv/app/a~/x.sqlite');
  });
});

describe('saved and CLI targets', () => {
  let home = '';
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'dwb-home-'));
    // os.homedir() reads HOME first, so the test's home is the one the code sees.
    vi.stubEnv('HOME', home);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    rmSync(home, { recursive: true, force: true });
  });

  it('saves ~/ and file:// paths as the absolute path of the existing file', async () => {
    const file = join(home, 'my data.sqlite');
    writeFileSync(file, '');
    await expect(normalizeTarget({ engine: 'sqlite', path: '~/my data.sqlite' })).resolves.toEqual({ engine: 'sqlite', path: file });
    await expect(normalizeTarget({ engine: 'sqlite', path: pathToFileURL(file).href })).resolves.toEqual({ engine: 'sqlite', path: file });
    await expect(normalizeTarget({ engine: 'duckdb', format: 'csv', path: '~/my data.sqlite' })).resolves.toEqual({ engine: 'duckdb', format: 'csv', path: file });
    await expect(normalizeTarget({ engine: 'kuzu', path: pathToFileURL(file).href })).resolves.toEqual({ engine: 'kuzu', path: file });
  });

  it('names the expanded path when the file is missing', async () => {
    await expect(normalizeTarget({ engine: 'sqlite', path: '~/absent.sqlite' })).rejects.toThrow(
      expect.objectContaining({ code: 'not-found', message: `No file at ${join(home, 'absent.sqlite')}` }),
    );
    await expect(normalizeTarget({ engine: 'kuzu', path: 'file:///nonexistent/x.kuzu' })).rejects.toThrow(
      expect.objectContaining({ code: 'not-found', message: 'No LadybugDB database at /nonexistent/x.kuzu' }),
    );
  });

  it('reads ~/ and file:// in CLI file URIs', () => {
    expect(parseConnectionUri('sqlite:~/x.sqlite')).toEqual({ engine: 'sqlite', path: join(home, 'x.sqlite') });
    expect(parseConnectionUri('duckdb:file:///tmp/x.duckdb')).toEqual({ engine: 'duckdb', format: 'duckdb', path: '/tmp/x.duckdb' });
    expect(parseConnectionUri('csv:file:///tmp/a%20b.csv')).toEqual({ engine: 'duckdb', format: 'csv', path: '/tmp/a b.csv' });
  });
});
