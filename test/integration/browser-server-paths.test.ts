import { spawnSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Method, Params } from '../../src-main/contract/api';
import { repoRoot, tinySqlite } from '../support/fixtures';
import { connectSocket, startServe, type ServeProcess } from '../support/serve';
import { useSuiteTempDir } from '../support/temp';

/**
 * Issue 26, items 1 and 6: a path a client names never stalls `dwb serve` (a named pipe with no
 * writer blocked its main thread in open(), /dev/zero read 256 MB on it), and every request that
 * takes a path says clearly what is wrong with it. Against the real server over its WebSocket,
 * with real pipes, devices, folders and files.
 */
const suiteDir = useSuiteTempDir();
let server: ServeProcess;
let paths: Record<'fifo' | 'folder' | 'file' | 'throughFile' | 'missing' | 'loop' | 'huge' | 'latin1', string>;

function mkfifo(path: string): string {
  expect(spawnSync('mkfifo', [path]).status).toBe(0);
  return path;
}

/** True while no process holds the pipe open for reading: a non-blocking open for writing then fails with ENXIO. */
function pipeHasNoReader(path: string): boolean {
  try {
    closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
    return false;
  } catch (error) {
    return (error as { code?: unknown }).code === 'ENXIO';
  }
}

beforeAll(async () => {
  const dir = suiteDir();
  const files = join(dir, 'files');
  mkdirSync(files);
  paths = {
    fifo: mkfifo(join(files, 'library.json')),
    folder: join(files, 'folder'),
    file: join(files, 'plain.json'),
    throughFile: join(files, 'plain.json', 'v001.json'),
    missing: join(files, 'missing.json'),
    loop: join(files, 'loop-a'),
    huge: join(files, 'huge.json'),
    latin1: join(files, 'latin1.json'),
  };
  mkdirSync(paths.folder);
  writeFileSync(paths.file, '{}');
  symlinkSync(join(files, 'loop-b'), paths.loop);
  symlinkSync(paths.loop, join(files, 'loop-b'));
  // Sparse: 300 GB by its size, no disk used.
  closeSync(openSync(paths.huge, 'w'));
  truncateSync(paths.huge, 300 * 1024 ** 3);
  writeFileSync(paths.latin1, Buffer.from('{"name":"Krak\xf3w"}', 'latin1'));
  server = await startServe(join(dir, 'workspace'));
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

/** The request's error, which must be a WorkbenchError with this code and a message matching. */
async function expectRefused<M extends Method>(method: M, params: Params<M>, code: string, message: RegExp): Promise<void> {
  const client = await connectSocket(server);
  try {
    const error = await client.invoke(method, params).then(
      (result) => ({ unexpected: result }),
      (failure: unknown) => failure,
    );
    expect(error, `${method} ${JSON.stringify(params)}`).toMatchObject({ name: 'WorkbenchError', code });
    expect((error as { message: string }).message, `${method} ${JSON.stringify(params)}`).toMatch(message);
  } finally {
    client.close();
  }
}

describe('a path a client names cannot stall dwb serve (issue 26, item 1)', () => {
  it('answers other clients and plain HTTP while one imports a named pipe with no writer, /dev/zero, /dev/urandom or a 300 GB file', async () => {
    const holder = await connectSocket(server);
    const other = await connectSocket(server);
    const outcomes: Record<string, unknown> = {};
    for (const path of [paths.fifo, '/dev/zero', '/dev/urandom', paths.huge]) {
      const held = holder.invoke('pearl/libraries/import', { path }).then(
        () => 'imported',
        (error: unknown) => error,
      );
      // The other client's request and a page load are answered: the main thread is free.
      expect(await other.invoke('workspace/info', {})).toMatchObject({ transport: 'websocket' });
      expect((await fetch(server.url)).status).toBe(200);
      outcomes[path] = await held;
    }
    // Each was refused for what it is, before a byte was read; the pipe never got a writer, and no reader holds it.
    expect(outcomes[paths.fifo]).toMatchObject({ code: 'invalid-request', message: `Could not read ${paths.fifo}: it is a named pipe, not a regular file` });
    expect(outcomes['/dev/zero']).toMatchObject({ code: 'invalid-request', message: 'Could not read /dev/zero: it is a device, not a regular file' });
    expect(outcomes['/dev/urandom']).toMatchObject({ code: 'invalid-request', message: 'Could not read /dev/urandom: it is a device, not a regular file' });
    expect(outcomes[paths.huge]).toMatchObject({ code: 'invalid-request', message: `Could not read ${paths.huge}: it holds more than 32 MB, the most read from such a file` });
    expect(pipeHasNoReader(paths.fifo)).toBe(true);
    holder.close();
    other.close();
  });
});

/** The 52-byte GGUF of issue 26, item 2: one metadata array of uint8 claiming 2^60 elements. */
function hostileGguf(): Buffer {
  const header = Buffer.alloc(52);
  header.write('GGUF', 0, 'ascii');
  header.writeUInt32LE(3, 4); // version
  header.writeBigUInt64LE(0n, 8); // tensors
  header.writeBigUInt64LE(1n, 16); // metadata entries
  header.writeBigUInt64LE(1n, 24); // key length
  header.write('a', 32, 'ascii');
  header.writeUInt32LE(9, 33); // array
  header.writeUInt32LE(0, 37); // of uint8
  header.writeBigUInt64LE(1n << 60n, 41); // elements
  return header;
}

describe('a model file a client names cannot stall dwb serve either (issue 26, item 1)', () => {
  it('answers other clients while one adds a GGUF whose header claims 2^60 elements, and refuses it as damaged', { timeout: 90_000 }, async () => {
    const path = join(suiteDir(), 'hostile.gguf');
    writeFileSync(path, hostileGguf());
    const holder = await connectSocket(server);
    const other = await connectSocket(server);
    const held = holder.invoke('local-models/add', { path }).then(
      () => 'added',
      (error: unknown) => error,
    );
    // The header is read in a worker thread: the main thread answers meanwhile.
    expect(await other.invoke('workspace/info', {})).toMatchObject({ transport: 'websocket' });
    expect((await fetch(server.url)).status).toBe(200);
    expect(await other.invoke('notebooks/list', {})).toBeInstanceOf(Array);
    expect(await held).toMatchObject({ name: 'WorkbenchError', code: 'unsupported', message: expect.stringMatching(/^Cannot read the GGUF header of .*hostile\.gguf: /) });
    expect((await other.invoke('local-models/list', {})).models).toEqual([]);
    holder.close();
    other.close();
  });
});

describe('a file beside a connection cannot stall dwb serve (issue 26, item 1)', () => {
  it('answers other clients while a what-if hashes a SQLite file whose -wal is a named pipe, and refuses it', async () => {
    const dir = join(suiteDir(), 'whatif');
    mkdirSync(dir);
    const path = tinySqlite(dir);
    const holder = await connectSocket(server);
    const other = await connectSocket(server);
    const connection = await holder.invoke('connections/add', { name: 'tiny', target: { engine: 'sqlite', path } });
    const wal = mkfifo(`${path}-wal`);
    const spec = { change: 'UPDATE store SET revenue = revenue + 100 WHERE id = :candidate', objective: 'SELECT sum(revenue) FROM store', candidates: [1, 2] };
    const held = holder.invoke('whatif/run', { connectionId: connection.id, spec }).then(
      () => 'ran',
      (error: unknown) => error,
    );
    expect(await other.invoke('workspace/info', {})).toMatchObject({ transport: 'websocket' });
    expect(await held).toMatchObject({ name: 'WorkbenchError', code: 'invalid-request', message: `what-if source ${wal} is a named pipe, not a regular file` });
    expect(pipeHasNoReader(wal)).toBe(true);
    holder.close();
    other.close();
  });
});

describe('every request that takes a path says what is wrong with it (issue 26, items 1 and 6)', () => {
  it('pearl/libraries/import', async () => {
    const method = 'pearl/libraries/import';
    await expectRefused(method, { path: paths.folder }, 'invalid-request', /: it is a folder, not a file \(EISDIR\)$/);
    await expectRefused(method, { path: paths.throughFile }, 'not-found', /: a part of the path is not a folder \(ENOTDIR\)$/);
    await expectRefused(method, { path: paths.missing }, 'not-found', /: no such file \(ENOENT\)$/);
    await expectRefused(method, { path: paths.loop }, 'invalid-request', /: the path goes round a loop of symbolic links \(ELOOP\)$/);
    await expectRefused(method, { path: paths.latin1 }, 'invalid-request', /: it is not UTF-8 text: save it as UTF-8 and try again$/);
    await expectRefused(method, { path: '/dev/null' }, 'invalid-request', /: it is a device, not a regular file$/);
  });

  it('playbooks/import, of the folder and of each version file in it', async () => {
    const method = 'playbooks/import';
    const cannot = (path: string): string => `^Cannot import playbooks from ${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: `;
    await expectRefused(method, { directory: paths.file }, 'invalid-request', new RegExp(`${cannot(paths.file)}it is a file, not a folder: name the folder dwb playbook train --out wrote$`));
    await expectRefused(method, { directory: paths.throughFile }, 'not-found', new RegExp(`${cannot(paths.throughFile)}a part of the path is not a folder \\(ENOTDIR\\)$`));
    await expectRefused(method, { directory: paths.fifo }, 'invalid-request', /: it is a named pipe, not a folder: /);
    await expectRefused(method, { directory: '/dev/zero' }, 'invalid-request', /: it is a device, not a folder: /);
    await expectRefused(method, { directory: paths.missing }, 'not-found', /: no such file \(ENOENT\)$/);
    await expectRefused(method, { directory: paths.loop }, 'invalid-request', /: the path goes round a loop of symbolic links \(ELOOP\)$/);

    // A folder whose version file is a pipe, a folder, or not UTF-8.
    const dir = join(suiteDir(), 'versions');
    mkdirSync(join(dir, 'pipe'), { recursive: true });
    const pipe = mkfifo(join(dir, 'pipe', 'v001.json'));
    mkdirSync(join(dir, 'folder', 'v001.json'), { recursive: true });
    mkdirSync(join(dir, 'latin1'));
    writeFileSync(join(dir, 'latin1', 'v001.json'), readFileSync(paths.latin1));
    await expectRefused(method, { directory: join(dir, 'pipe') }, 'invalid-request', new RegExp(`^Cannot import the playbook version ${pipe.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: it is a named pipe, not a regular file$`));
    await expectRefused(method, { directory: join(dir, 'folder') }, 'invalid-request', /v001\.json: it is a folder, not a file \(EISDIR\)$/);
    await expectRefused(method, { directory: join(dir, 'latin1') }, 'invalid-request', /v001\.json: it is not UTF-8 text/);
    expect(pipeHasNoReader(pipe)).toBe(true);
  });

  it('local-models/add', async () => {
    const method = 'local-models/add';
    await expectRefused(method, { path: paths.fifo }, 'invalid-request', /^Cannot read the model file .*: it is a named pipe, not a regular file$/);
    await expectRefused(method, { path: '/dev/zero' }, 'invalid-request', /: it is a device, not a regular file$/);
    await expectRefused(method, { path: paths.folder }, 'invalid-request', /: it is a folder, not a file \(EISDIR\)$/);
    await expectRefused(method, { path: paths.throughFile }, 'not-found', /: a part of the path is not a folder \(ENOTDIR\)$/);
    await expectRefused(method, { path: paths.loop }, 'invalid-request', /\(ELOOP\)$/);
    await expectRefused(method, { path: paths.huge }, 'unsupported', /is not a GGUF model file/);
    expect(pipeHasNoReader(paths.fifo)).toBe(true);
  });

  it('connections/add and connections/test of a file connection', async () => {
    const sqlite = (path: string): Params<'connections/add'> => ({ name: 'x', target: { engine: 'sqlite', path } });
    await expectRefused('connections/add', sqlite(paths.fifo), 'invalid-request', /is a named pipe, not a regular file: expected a SQLite file$/);
    await expectRefused('connections/add', sqlite('/dev/zero'), 'invalid-request', /^\/dev\/zero is a device, not a regular file: expected a SQLite file$/);
    await expectRefused('connections/add', sqlite(paths.folder), 'invalid-request', /is a folder, not a SQLite file$/);
    await expectRefused('connections/add', sqlite(paths.throughFile), 'not-found', /^Cannot open .*: a part of the path is not a folder \(ENOTDIR\)$/);
    await expectRefused('connections/add', sqlite(paths.loop), 'invalid-request', /\(ELOOP\)$/);
    const client = await connectSocket(server);
    expect(await client.invoke('connections/test', { target: { engine: 'duckdb', format: 'csv', path: paths.throughFile } })).toMatchObject({
      ok: false,
      code: 'not-found',
      message: expect.stringMatching(/a part of the path is not a folder \(ENOTDIR\)$/),
    });
    client.close();
  });

  it('playbooks/train and benchmarks/start, of the questions file and of the dumps it names', async () => {
    const client = await connectSocket(server);
    // Both need a model before they read anything; nothing is called, as every file is refused.
    await client.invoke('model/save', { settings: { baseUrl: 'http://127.0.0.1:9/v1', model: 'none' } });
    client.close();
    const train = (questionsFile: string): Params<'playbooks/train'> => ({ questionsFile, db: 'rdb' });
    const bench = (questionsFile: string): Params<'benchmarks/start'> => ({ questionsFile, techniques: ['planrag'], dbs: ['rdb'] });
    for (const [method, params] of [
      ['playbooks/train', train],
      ['benchmarks/start', bench],
    ] as const) {
      await expectRefused(method, params(paths.fifo), 'invalid-request', /^cannot read the questions file .*: it is a named pipe, not a regular file$/);
      await expectRefused(method, params('/dev/urandom'), 'invalid-request', /: it is a device, not a regular file$/);
      await expectRefused(method, params(paths.folder), 'invalid-request', /: it is a folder, not a file \(EISDIR\)$/);
      await expectRefused(method, params(paths.throughFile), 'not-found', /: a part of the path is not a folder \(ENOTDIR\)$/);
      await expectRefused(method, params(paths.huge), 'invalid-request', /: it holds more than 32 MB/);
    }
    // A questions file whose dump is a named pipe.
    const dir = join(suiteDir(), 'questions');
    mkdirSync(dir);
    const [first] = JSON.parse(readFileSync(join(repoRoot, 'fixtures', 'dqa', 'locating', 'questions.json'), 'utf8')) as Record<string, unknown>[];
    writeFileSync(join(dir, 'questions.json'), JSON.stringify([{ ...first, rdb: 'pipe.sql' }]));
    const dump = mkfifo(join(dir, 'pipe.sql'));
    await expectRefused('playbooks/train', train(join(dir, 'questions.json')), 'invalid-request', /^dump pipe\.sql at .*pipe\.sql is a named pipe, not a regular file$/);
    await expectRefused('benchmarks/start', bench(join(dir, 'questions.json')), 'invalid-request', /^dump pipe\.sql at .*pipe\.sql is a named pipe, not a regular file$/);
    expect(pipeHasNoReader(dump)).toBe(true);
  });
});
