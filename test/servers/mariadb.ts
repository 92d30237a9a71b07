import { existsSync } from 'node:fs';
import { join } from 'node:path';

import mysql from 'mysql2/promise';

import { findFreeLoopbackPort } from './free-port';
import { runToCompletion, spawnServer, stopServer, waitUntilReady } from './server-process';
import type { TestServer } from './types';
import { makeServerDataDir, removeDataDir, runAsServiceAccount } from './unprivileged-user';
import { skippedOnRequest } from './skip';

const user = 'wb';
const password = 'wb-test-secret';
const database = 'wbtest';

const serverCandidates = ['/usr/sbin/mariadbd', '/usr/sbin/mysqld'];
const installCandidates = ['/usr/bin/mariadb-install-db', '/usr/bin/mysql_install_db'];

function firstExisting(paths: string[]): string | null {
  return paths.find((path) => existsSync(path)) ?? null;
}

/** Why the MariaDB suite cannot run here, or null when it can. Cheap: checks files only. */
export function whyMariadbUnavailable(): string | null {
  const skipped = skippedOnRequest('mariadb');
  if (skipped !== null) return skipped;
  if (firstExisting(serverCandidates) === null || firstExisting(installCandidates) === null) {
    return 'MariaDB not installed (no mariadbd / mariadb-install-db; apt-get install mariadb-server)';
  }
  return null;
}

/**
 * Starts a real MariaDB on 127.0.0.1 with its data in a temp directory. The login user gets
 * ALL PRIVILEGES including FILE on purpose: the connector must stay read-only with every right.
 * Returns null (after printing why) when MariaDB is not installed.
 */
export async function startMariadb(): Promise<TestServer | null> {
  const skipped = skippedOnRequest('mariadb');
  if (skipped !== null) {
    console.warn(skipped);
    return null;
  }
  const serverBin = firstExisting(serverCandidates);
  const installBin = firstExisting(installCandidates);
  if (serverBin === null || installBin === null) {
    console.warn(whyMariadbUnavailable());
    return null;
  }
  const started = Date.now();
  // mariadbd refuses to run as root; as root it runs as the Debian "mysql" account.
  const runAs = runAsServiceAccount('mysql');
  const dir = makeServerDataDir('wb-mariadb-', runAs);
  const dataDir = join(dir, 'data');
  const socket = join(dir, 'mariadb.sock');
  const port = await findFreeLoopbackPort();

  try {
    await runToCompletion(
      installBin,
      [
        '--no-defaults', // ignore /etc/mysql: the system server's settings are not ours
        `--datadir=${dataDir}`,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
        '--skip-name-resolve',
      ],
      runAs,
    );
    const server = spawnServer(
      serverBin,
      [
        '--no-defaults',
        `--datadir=${dataDir}`,
        `--socket=${socket}`,
        `--pid-file=${join(dir, 'mariadb.pid')}`,
        '--bind-address=127.0.0.1',
        `--port=${port}`,
        '--skip-name-resolve',
        '--skip-log-bin',
        '--innodb-buffer-pool-size=32M',
        '--innodb-flush-log-at-trx-commit=0', // throwaway data: durability only costs time
        '--innodb-doublewrite=0',
        '--performance-schema=OFF',
        '--max-connections=40',
      ],
      runAs,
    );
    // root@localhost exists only on the Unix socket; it creates the TCP user the tests log in as.
    await waitUntilReady(server, () => runAsRoot(socket, ['SELECT 1']), 60_000, 'MariaDB');
    await runAsRoot(socket, [
      `CREATE DATABASE ${database}`,
      `CREATE USER '${user}'@'127.0.0.1' IDENTIFIED BY '${password}'`,
      `GRANT ALL PRIVILEGES ON *.* TO '${user}'@'127.0.0.1' WITH GRANT OPTION`,
    ]);
    return {
      uri: `mysql://${user}:${password}@127.0.0.1:${port}/${database}`,
      username: user,
      password,
      startupMs: Date.now() - started,
      async stop() {
        await stopServer(server, 'SIGTERM');
        removeDataDir(dir);
      },
    };
  } catch (error) {
    removeDataDir(dir);
    throw error;
  }
}

async function runAsRoot(socketPath: string, statements: string[]): Promise<void> {
  const connection = await mysql.createConnection({ socketPath, user: 'root', connectTimeout: 2000 });
  try {
    for (const statement of statements) await connection.query(statement);
  } finally {
    await connection.end().catch(() => undefined);
  }
}
