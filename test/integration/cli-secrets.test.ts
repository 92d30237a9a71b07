import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dqaRoot } from '../../src-main/dqa/dataset';
import { sqliteFromDqaDump } from '../support/fixtures';
import { runDwb } from '../support/cli';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer } from '../support/scripted-openai';
import { useSuiteTempDir, useTempDirs } from '../support/temp';
import { startPostgres, whyPostgresUnavailable, type TestServer } from '../servers';
import { describeOrNotRun } from '../servers/not-run';

/**
 * Issue 17, item 10: `dwb run` took the API key only on the command line, where every user of
 * the machine sees it (`ps`). The key now comes from a file or DWB_API_KEY; database passwords
 * from --password-file or DWB_DB_PASSWORD.
 */
const suiteDir = useSuiteTempDir();
const tempDir = useTempDirs();
let database = '';
let questionFile = '';
const apiKey = 'sk-test-Vr7u-not-in-argv';

beforeAll(() => {
  database = sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', suiteDir());
  questionFile = join(suiteDir(), 'question.txt');
  writeFileSync(questionFile, 'Where should SWE place its merchant to maximise profit at baltic_sea?');
});

const servers: ScriptedOpenAiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A model that only answers with the right key (401 otherwise), and answers at once. */
async function keyedModel(): Promise<ScriptedOpenAiServer> {
  const server = await startScriptedOpenAiServer([{ toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'SWE steers value from krakow.' } }] }], {
    requireApiKey: apiKey,
  });
  servers.push(server);
  return server;
}

function runArgs(server: ScriptedOpenAiServer, out: string, extra: string[]): string[] {
  return ['run', '--connection', `sqlite:${database}`, '--question-file', questionFile, '--technique', 'iterrag', '--base-url', server.baseUrl, '--model', 'scripted', '--tool-mode', 'tools', '--out', out, ...extra];
}

/** Every file the run wrote, so that the key can be looked for in all of them. */
function outputText(out: string): string {
  return readdirSync(out)
    .map((name) => readFileSync(join(out, name), 'utf8'))
    .join('\n');
}

describe('dwb run takes the API key without argv', () => {
  it('reads it from --api-key-file and sends it as the bearer token', async () => {
    const server = await keyedModel();
    const keyFile = join(tempDir(), 'key');
    writeFileSync(keyFile, `${apiKey}\n`, { mode: 0o600 });
    const out = tempDir();
    const result = await runDwb(runArgs(server, out, ['--api-key-file', keyFile]), { env: { DWB_API_KEY: '' } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n').at(-1)).toBe('decision: krakow');
    expect(result.stderr).not.toContain('warning');
    expect(server.requests.map((request) => request.headers.authorization)).toEqual([`Bearer ${apiKey}`]);
    expect(outputText(out)).not.toContain(apiKey);
  });

  it('reads it from DWB_API_KEY', async () => {
    const server = await keyedModel();
    const out = tempDir();
    const result = await runDwb(runArgs(server, out, []), { env: { DWB_API_KEY: apiKey } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('warning');
    expect(server.requests.map((request) => request.headers.authorization)).toEqual([`Bearer ${apiKey}`]);
    expect(outputText(out)).not.toContain(apiKey);
  });

  it('refuses --api-key before any model call, saying where the key goes instead', async () => {
    const server = await keyedModel();
    const result = await runDwb(runArgs(server, tempDir(), ['--api-key', apiKey]), { env: { DWB_API_KEY: '' } });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe('dwb run: invalid-request: --api-key would put the key on the command line, where other users of this machine can read it (ps, shell history): use --api-key-file F or the environment variable DWB_API_KEY');
    expect(server.requests).toHaveLength(0);
  });

  it('refuses an unreadable key file and a base URL with credentials, quoting neither secret', async () => {
    const server = await keyedModel();
    const missing = join(tempDir(), 'missing-key');
    const unreadable = await runDwb(runArgs(server, tempDir(), ['--api-key-file', missing]));
    expect(unreadable.code).toBe(1);
    expect(unreadable.stderr.trim()).toBe(`dwb run: not-found: Cannot read --api-key-file ${missing}: no such file (ENOENT)`);
    const inUrl = await runDwb(runArgs(server, tempDir(), []).map((arg) => (arg === server.baseUrl ? arg.replace('http://', `http://me:${apiKey}@`) : arg)));
    expect(inUrl.code).toBe(2);
    expect(inUrl.stderr).toMatch(/baseUrl must not contain a user name or password/);
    expect(inUrl.stderr).not.toContain(apiKey);
    expect(server.requests).toHaveLength(0);
  });
});

describe('an API key in the base URL query string or fragment (issue 26, item 3)', () => {
  // Refused before any model call or file is written, by every command that takes --base-url:
  // nothing listens on port 1, so a command that tried to call would fail differently.
  const inQuery = 'sk-query-Mw3-not-in-argv';
  const urls = [`http://127.0.0.1:1/v1?api_key=${inQuery}`, `http://127.0.0.1:1/v1?key=${inQuery}`, `http://127.0.0.1:1/v1#${inQuery}`];
  const model = ['--model', 'm'];
  const commands: string[][] = [
    ['run', '--connection', 'sqlite:DATABASE', '--question-file', 'QUESTION', '--technique', 'iterrag', '--base-url', 'URL', ...model, '--out', 'OUT'],
    ['dqa', 'solve', '--questions', 'QUESTIONS', '--engine', 'planrag', '--base-url', 'URL', ...model, '--out', 'OUT'],
    ['dellma', 'solve', '--problems', 'agriculture', '--base-url', 'URL', ...model, '--out', 'OUT'],
    ['actions', 'mine', '--questions', 'QUESTIONS', '--db', 'rdb', '--base-url', 'URL', ...model, '--out', 'OUT/lib.json'],
    ['playbook', 'train', '--questions', 'QUESTIONS', '--base-url', 'URL', ...model, '--out', 'OUT'],
  ];
  const cases = commands.flatMap((args) => urls.map((url) => [`${args.slice(0, args[0] === 'run' ? 1 : 2).join(' ')} ${url.replace(inQuery, 'KEY')}`, args, url] as const));
  it.each(cases)('dwb %s is refused with the user:secret@ message, quoting no key and writing nothing', async (_, args, url) => {
    const questions = join(dqaRoot(), 'locating', 'questions.json');
    const out = tempDir();
    const filled = args.map((arg) =>
      arg === 'URL' ? url : arg === 'QUESTION' ? questionFile : arg === 'QUESTIONS' ? questions : arg === 'sqlite:DATABASE' ? `sqlite:${database}` : arg.replace(/^OUT/, join(out, 'result')),
    );
    const result = await runDwb(filled, { env: { DWB_API_KEY: '' } });
    expect(result.code, result.stderr).toBe(2);
    // dwb dellma says its cost estimate first: the refusal is a line of its own.
    expect(result.stderr.trim()).toMatch(/^dwb [a-z ]+: invalid-request: Invalid model settings: baseUrl: baseUrl must not contain a user name or password \(user:secret@\), a query string \(\?api_key=…\) or a fragment \(#…\): remove them and give the key as the API key/m);
    expect(result.stderr).not.toContain(inQuery);
    expect(result.stdout).not.toContain(inQuery);
    expect(readdirSync(out)).toEqual([]);
  });
});

describe('a database password written into a URI on the command line', () => {
  // Refused before anything connects, by every command that takes a server URI: nothing listens
  // on port 1, so a command that tried to connect would fail differently.
  const secret = 'pw-Qx9-not-in-argv';
  const commands: string[][] = [
    ['query', '--connection', `postgres://wb:${secret}@127.0.0.1:1/db`, 'SELECT 1'],
    ['query', '--connection', `mysql://wb:${secret}@127.0.0.1:1/db`, 'SELECT 1'],
    ['query', '--connection', `neo4j://neo4j:${secret}@127.0.0.1:1`, 'MATCH (n) RETURN n'],
    ['whatif', '--connection', `postgres://wb:${secret}@127.0.0.1:1/db`, '--change', 'UPDATE t SET x = 1', '--objective', 'SELECT 1', '--candidates', 'a'],
    ['run', '--connection', `postgres://wb:${secret}@127.0.0.1:1/db`, '--question-file', 'QUESTION', '--technique', 'iterrag', '--base-url', 'http://127.0.0.1:1/v1', '--model', 'm', '--out', 'OUT'],
    ['dqa', 'import', '--questions', 'QUESTIONS', '--target', `postgres://wb:${secret}@127.0.0.1:1/{dump}`],
    ['dqa', 'solve', '--questions', 'QUESTIONS', '--engine', 'simulator', '--db', 'rdb', '--target', `postgres://wb:${secret}@127.0.0.1:1/{dump}`],
  ];
  it.each(commands.map((args) => [args.slice(0, args[0] === 'dqa' ? 2 : 1).join(' '), args] as const))('is refused by dwb %s, saying where it goes instead', async (_, args) => {
    const questions = join(dqaRoot(), 'locating', 'questions.json');
    const filled = args.map((arg) => (arg === 'QUESTION' ? questionFile : arg === 'QUESTIONS' ? questions : arg === 'OUT' ? tempDir() : arg));
    const result = await runDwb(filled, { env: { DWB_DB_PASSWORD: '' } });
    expect(result.code, result.stderr).toBe(2);
    const flag = args.includes('--target') ? '--target' : '--connection';
    expect(result.stderr.trim()).toMatch(new RegExp(`^dwb [a-z ]+: invalid-request: ${flag} holds a password \\(user:password@host\\).*--password-file F or the environment variable DWB_DB_PASSWORD$`));
    expect(result.stderr).not.toContain(secret);
  });
});

describe('--password-file where nothing takes a password', () => {
  it('is refused, not ignored', async () => {
    const passwordFile = join(tempDir(), 'pw');
    writeFileSync(passwordFile, 'secret\n', { mode: 0o600 });
    const cases: [string[], RegExp][] = [
      [['query', '--connection', `sqlite:${database}`, '--password-file', passwordFile, 'SELECT 1'], /--password-file goes with a server connection/],
      [['verify', '--password-file', passwordFile, join(tempDir(), 'bundle.json')], /--password-file goes with --replay --connection/],
      [['dqa', 'solve', '--questions', join(tempDir(), 'questions.json'), '--engine', 'simulator', '--password-file', passwordFile], /--password-file goes with --target/],
    ];
    for (const [args, message] of cases) {
      const result = await runDwb(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toContain('secret');
    }
  });
});

let postgres: TestServer | null = null;
describeOrNotRun('dwb query takes the database password without argv', whyPostgresUnavailable(), () => {
  beforeAll(async () => {
    postgres = await startPostgres();
  }, 180_000);
  afterAll(async () => {
    await postgres?.stop();
  });

  it('reads it from --password-file or DWB_DB_PASSWORD', async () => {
    const server = postgres as TestServer;
    const bare = server.uri.replace(`:${server.password}@`, '@');
    expect(bare).not.toContain(server.password);
    const passwordFile = join(tempDir(), 'pgpass');
    writeFileSync(passwordFile, `${server.password}\n`, { mode: 0o600 });

    const fromFile = await runDwb(['query', '--connection', bare, '--password-file', passwordFile, '--json', 'SELECT 41 + 1 AS answer'], { env: { DWB_DB_PASSWORD: '' } });
    expect(fromFile.stdout.trim(), fromFile.stderr).toBe('{"answer":42}');
    const fromEnv = await runDwb(['query', '--connection', bare, '--json', 'SELECT 41 + 1 AS answer'], { env: { DWB_DB_PASSWORD: server.password } });
    expect(fromEnv.stdout.trim(), fromEnv.stderr).toBe('{"answer":42}');
    // The variable really is the password used: a wrong one fails the login.
    const wrong = await runDwb(['query', '--connection', bare, 'SELECT 1'], { env: { DWB_DB_PASSWORD: 'not-the-password' } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('password authentication failed');
    expect(wrong.stderr).not.toContain('not-the-password');
  });

  it('ends with a clear error, and exits, when the server asks for a password and none was given', async () => {
    const server = postgres as TestServer;
    const bare = server.uri.replace(`:${server.password}@`, '@');
    const none = await runDwb(['query', '--connection', bare, 'SELECT 1'], { env: { DWB_DB_PASSWORD: '' }, timeoutMs: 20_000 });
    expect(none.code, 'the process must exit on its own').toBe(1);
    expect(none.stderr.trim()).toMatch(/^dwb query: connection-failed: .*password.*--password-file.*DWB_DB_PASSWORD/);
  });
});
