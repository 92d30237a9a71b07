import { spawnSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Method, Params } from '../../src-main/contract/api';
import { repoRoot } from '../support/fixtures';
import { connectSocket, startServe, type ServeProcess } from '../support/serve';
import { useSuiteTempDir } from '../support/temp';

/**
 * Every request of `dwb serve` that takes a path, given every kind of path that is not a
 * readable regular file of the right kind (issue 26, items 1 and 6): named pipes with no writer,
 * devices that never end, sockets, folders, paths through a file, loops of links, NUL bytes,
 * names too long, a sparse 300 GB file, text that is not UTF-8, each reached directly, through
 * a symbolic link and through `..`. All of one path go at once, beside a second client whose
 * request must be answered too. Each must be refused with a specific error, never run, never
 * an internal error; afterwards no pipe has a reader. Prints what it sent and how it was answered.
 */
const suiteDir = useSuiteTempDir();
let server: ServeProcess;
let unixSocket: Server;
const figures = {
  requests: 0,
  codes: new Map<string, number>(),
  perMethod: new Map<string, number>(),
  accepted: 0,
  otherClientAnswers: 0,
  pipesWithReader: 0,
};
const bump = (map: Map<string, number>, key: string): void => void map.set(key, (map.get(key) ?? 0) + 1);

/** The hostile targets, by name: the path and what refuses it. */
const targets: { name: string; path: string }[] = [];
const pipes: string[] = [];

beforeAll(async () => {
  const dir = join(suiteDir(), 'files');
  mkdirSync(dir);
  const pipe = (name: string): string => {
    const path = join(dir, name);
    expect(spawnSync('mkfifo', [path]).status).toBe(0);
    pipes.push(path);
    return path;
  };
  const base: { name: string; path: string }[] = [
    { name: 'named pipe', path: pipe('pipe.json') },
    { name: 'named pipe .sql', path: pipe('pipe.sql') },
    { name: '/dev/zero', path: '/dev/zero' },
    { name: '/dev/urandom', path: '/dev/urandom' },
    { name: '/dev/null', path: '/dev/null' },
    { name: '/dev/full', path: '/dev/full' },
    { name: '/dev/stdin', path: '/dev/stdin' },
    { name: 'folder', path: join(dir, 'folder') },
    { name: 'through a file', path: join(dir, 'plain.json', 'inside.json') },
    { name: 'missing', path: join(dir, 'missing.json') },
    { name: 'loop of links', path: join(dir, 'loop-a') },
    { name: 'dangling link', path: join(dir, 'dangling') },
    { name: 'NUL byte', path: join(dir, 'nul\0.json') },
    { name: 'name too long', path: join(dir, `${'n'.repeat(300)}.json`) },
    { name: 'sparse 300 GB', path: join(dir, 'huge.json') },
    { name: 'not UTF-8', path: join(dir, 'latin1.json') },
    { name: 'socket', path: join(dir, 'db.sock') },
  ];
  mkdirSync(join(dir, 'folder'));
  writeFileSync(join(dir, 'plain.json'), '{}');
  symlinkSync(join(dir, 'loop-b'), join(dir, 'loop-a'));
  symlinkSync(join(dir, 'loop-a'), join(dir, 'loop-b'));
  symlinkSync(join(dir, 'nowhere'), join(dir, 'dangling'));
  closeSync(openSync(join(dir, 'huge.json'), 'w'));
  truncateSync(join(dir, 'huge.json'), 300 * 1024 ** 3);
  writeFileSync(join(dir, 'latin1.json'), Buffer.from('{"name":"Krak\xf3w"}', 'latin1'));
  unixSocket = createServer();
  await new Promise<void>((resolve) => unixSocket.listen(join(dir, 'db.sock'), resolve));
  mkdirSync(join(dir, 'links'));
  mkdirSync(join(dir, 'up'));
  for (const [index, target] of base.entries()) {
    targets.push(target);
    if (target.name === 'NUL byte' || target.name === 'name too long') continue;
    const link = join(dir, 'links', `link-${index}`);
    symlinkSync(target.path, link);
    targets.push({ name: `${target.name}, through a link`, path: link });
    if (target.path.startsWith(dir)) targets.push({ name: `${target.name}, through ..`, path: join(dir, 'up', '..', target.path.slice(dir.length + 1)) });
  }
  // A folder whose version file, and a questions file whose dump, is a named pipe.
  mkdirSync(join(dir, 'versions'));
  pipes.push(join(dir, 'versions', 'v001.json'));
  expect(spawnSync('mkfifo', [join(dir, 'versions', 'v001.json')]).status).toBe(0);
  targets.push({ name: 'folder of a pipe v001.json', path: join(dir, 'versions') });
  const [question] = JSON.parse(readFileSync(join(repoRoot, 'fixtures', 'dqa', 'locating', 'questions.json'), 'utf8')) as Record<string, unknown>[];
  writeFileSync(join(dir, 'questions.json'), JSON.stringify([{ ...question, rdb: 'pipe.sql' }]));
  targets.push({ name: 'questions naming a pipe dump', path: join(dir, 'questions.json') });

  server = await startServe(join(suiteDir(), 'workspace'));
  const setup = await connectSocket(server);
  await setup.invoke('model/save', { settings: { baseUrl: 'http://127.0.0.1:9/v1', model: 'none' } });
  setup.close();
}, 60_000);

afterAll(async () => {
  const crashed = server.child.exitCode !== null || server.child.signalCode !== null;
  await server.stop();
  unixSocket?.close();
  const list = (map: Map<string, number>): string => [...map].sort().map(([key, count]) => `${key}: ${count}`).join(', ');
  process.stdout.write(
    [
      `server paths: ${targets.length} hostile paths × ${Object.keys(requests).length} path-taking requests`,
      `  requests sent: ${figures.requests} (refused: ${list(figures.codes)}; carried out: ${figures.accepted})`,
      `  per request: ${list(figures.perMethod)}`,
      `  another client's requests answered meanwhile: ${figures.otherClientAnswers}`,
      `  named pipes left with a reader: ${figures.pipesWithReader} of ${pipes.length}; crashes: ${crashed ? 1 : 0}`,
      '',
    ].join('\n'),
  );
});

/** Each path-taking request, as it names a path. */
const requests: Record<string, (path: string) => { method: Method; params: Params<Method> }> = {
  'pearl/libraries/import': (path) => ({ method: 'pearl/libraries/import', params: { path } }),
  'playbooks/import': (directory) => ({ method: 'playbooks/import', params: { directory } }),
  'playbooks/train': (questionsFile) => ({ method: 'playbooks/train', params: { questionsFile, db: 'rdb' } }),
  'benchmarks/start': (questionsFile) => ({ method: 'benchmarks/start', params: { questionsFile, techniques: ['planrag'], dbs: ['rdb'] } }),
  'local-models/add': (path) => ({ method: 'local-models/add', params: { path } }),
  'connections/add sqlite': (path) => ({ method: 'connections/add', params: { name: 'x', target: { engine: 'sqlite', path } } }),
  'connections/add csv': (path) => ({ method: 'connections/add', params: { name: 'x', target: { engine: 'duckdb', format: 'csv', path } } }),
  'connections/test sqlite': (path) => ({ method: 'connections/test', params: { target: { engine: 'sqlite', path } } }),
};

/** Regular files of the wrong kind that a request may take as they are (a connection is added by its path; the file is read when used). */
function acceptable(request: string, target: string): boolean {
  const regular = /^(not UTF-8|sparse 300 GB|questions naming a pipe dump)/.test(target);
  return regular && request.startsWith('connections/add');
}

function pipeHasReader(path: string): boolean {
  try {
    closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code !== 'ENXIO';
  }
}

describe('server paths: every path-taking request refuses every path that is not a readable file of its kind', () => {
  it('refuses each with a specific error, all at once beside another client that is answered', { timeout: 300_000 }, async () => {
    const hostile = await connectSocket(server);
    const other = await connectSocket(server);
    for (const target of targets) {
      const replies = Object.entries(requests).map(([name, make]) => {
        const { method, params } = make(target.path);
        figures.requests++;
        bump(figures.perMethod, name);
        return hostile.invoke(method, params).then(
          (result) => ({ name, ok: true as const, result }),
          (error: unknown) => ({ name, ok: false as const, error: error as { code: string; message: string } }),
        );
      });
      expect(await other.invoke('workspace/info', {})).toMatchObject({ transport: 'websocket' });
      figures.otherClientAnswers++;
      for (const reply of await Promise.all(replies)) {
        const where = `${reply.name} of ${target.name} (${JSON.stringify(target.path).slice(0, 120)})`;
        // connections/test reports a failure instead of throwing it.
        const failure = reply.ok && reply.name.startsWith('connections/test') ? (reply.result as { ok: boolean; code?: string; message: string }) : null;
        if (reply.ok && failure === null) {
          expect(acceptable(reply.name, target.name), `${where} was carried out`).toBe(true);
          figures.accepted++;
          continue;
        }
        const { code, message } = failure ? { code: failure.code ?? 'none', message: failure.message } : reply.ok ? { code: 'none', message: '' } : reply.error;
        expect(failure?.ok ?? false, `${where} connected`).toBe(false);
        bump(figures.codes, code);
        expect(['not-found', 'invalid-request', 'unsupported'], `${where}: ${code} ${message}`).toContain(code);
        expect(message, where).toMatch(/\S/);
        expect(message, where).not.toMatch(/Cannot read properties|undefined|\[object |ERR_[A-Z_]+/);
        if (target.name === 'NUL byte') expect(message, where).toMatch(/the path holds a NUL character/);
      }
    }
    for (const pipe of pipes) if (pipeHasReader(pipe)) figures.pipesWithReader++;
    expect(figures.pipesWithReader).toBe(0);
    expect(server.child.exitCode).toBeNull();
    expect((await fetch(server.url)).status).toBe(200);
    hostile.close();
    other.close();
  });
});
