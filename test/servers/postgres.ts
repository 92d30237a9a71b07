import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import pg from 'pg';

import { findFreeLoopbackPort } from './free-port';
import { runToCompletion, spawnServer, stopServer, waitUntilReady } from './server-process';
import type { TestServer } from './types';
import { makeServerDataDir, removeDataDir, runAsServiceAccount } from './unprivileged-user';
import { skippedOnRequest } from './skip';

/** The cluster's superuser (initdb's bootstrap role). */
const superuser = 'wb';
/**
 * The login the tests' URI carries: owner of the test database with CREATEDB (so fixtures and
 * dump imports can create what they need) and nothing else, i.e. a role the connectors accept
 * without `allow_privileged`. Its tables are writable by it, so the read-only layers are still
 * what keeps the data unchanged.
 */
const user = 'wb_owner';
const password = 'wb-test-secret';
const database = 'wbtest';

/** Debian installs each major version under /usr/lib/postgresql/N/bin; the newest wins. */
function findPostgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(root, versions[0] ?? '', 'bin') : null;
}

/** Why the PostgreSQL suite cannot run here, or null when it can. Cheap: checks files only. */
export function whyPostgresUnavailable(): string | null {
  const skipped = skippedOnRequest('postgres');
  if (skipped !== null) return skipped;
  return findPostgresBin() === null ? 'PostgreSQL not installed (no /usr/lib/postgresql/*/bin/postgres; apt-get install postgresql)' : null;
}

/**
 * Starts a real PostgreSQL on 127.0.0.1 with its cluster in a temp directory. `uri` logs in as
 * the database's owner (not a superuser: the connectors refuse superuser logins by default);
 * `adminUri` as the superuser, for tests of privileged logins.
 * Returns null (after printing why) when PostgreSQL is not installed.
 */
export async function startPostgres(): Promise<TestServer | null> {
  const skipped = skippedOnRequest('postgres');
  if (skipped !== null) {
    console.warn(skipped);
    return null;
  }
  const bin = findPostgresBin();
  if (bin === null) {
    console.warn(whyPostgresUnavailable());
    return null;
  }
  const started = Date.now();
  // initdb and postgres refuse to run as root; as root they run as the Debian "postgres" account.
  const runAs = runAsServiceAccount('postgres');
  const dir = makeServerDataDir('wb-postgres-', runAs);
  const dataDir = join(dir, 'data');
  const passwordFile = join(dir, 'password');
  writeFileSync(passwordFile, password, { mode: 0o644 });
  const port = await findFreeLoopbackPort();

  try {
    await runToCompletion(
      join(bin, 'initdb'),
      ['-D', dataDir, '-U', superuser, `--pwfile=${passwordFile}`, '--auth=scram-sha-256', '-E', 'UTF8', '--locale=C', '--no-sync'],
      runAs,
    );
    const server = spawnServer(
      join(bin, 'postgres'),
      [
        '-D', dataDir,
        '-h', '127.0.0.1',
        '-p', String(port),
        '-k', dir, // Unix socket in the temp dir, not /var/run (which root owns)
        '-c', 'fsync=off', // throwaway data: durability only costs time
        '-c', 'synchronous_commit=off',
        '-c', 'full_page_writes=off',
        '-c', 'shared_buffers=32MB',
        '-c', 'max_connections=30',
      ],
      runAs,
    );
    const adminUri = `postgres://${superuser}:${password}@127.0.0.1:${port}/postgres`;
    await waitUntilReady(server, () => probe(adminUri), 60_000, 'PostgreSQL');
    await runAdmin(adminUri, `CREATE ROLE ${user} LOGIN CREATEDB PASSWORD '${password}'`);
    await runAdmin(adminUri, `CREATE DATABASE ${database} OWNER ${user}`);
    return {
      uri: `postgres://${user}:${password}@127.0.0.1:${port}/${database}`,
      adminUri: `postgres://${superuser}:${password}@127.0.0.1:${port}/${database}`,
      username: user,
      password,
      startupMs: Date.now() - started,
      async stop() {
        // SIGINT is PostgreSQL's "fast shutdown": ends sessions, skips waiting for clients.
        await stopServer(server, 'SIGINT');
        removeDataDir(dir);
      },
    };
  } catch (error) {
    removeDataDir(dir);
    throw error;
  }
}

async function probe(uri: string): Promise<void> {
  await runAdmin(uri, 'SELECT 1');
}

async function runAdmin(uri: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: uri, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query(sql);
  } finally {
    await client.end().catch(() => undefined);
  }
}
