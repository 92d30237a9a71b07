import { existsSync } from 'node:fs';
import { join } from 'node:path';

import mysql from 'mysql2/promise';

import { findFreeLoopbackPort } from './free-port';
import { runToCompletion, spawnServer, stopServer, waitUntilReady } from './server-process';
import type { TestServer } from './types';
import { makeServerDataDir, removeDataDir, runAsServiceAccount } from './unprivileged-user';
import { skippedOnRequest } from './skip';

/** The read-only login the tests' URI carries: what the connector accepts without allow_privileged. */
const user = 'wb_reader';
const password = 'wb-reader-secret';
/** The login that creates the data: ALL PRIVILEGES with FILE and GRANT OPTION, the worst case the connector must refuse or survive. */
const adminUser = 'wb';
const adminPassword = 'wb-test-secret';
const database = 'wbtest';

/**
 * The same server and database as `uri`, logged in as the test server's privileged login: for
 * admin SQL (fixtures, imports) and for tests of privileged logins. The credentials are the
 * throwaway server's own, fixed here, never a real secret.
 */
export function mariadbAdminUri(uri: string): string {
  const url = new URL(uri);
  url.username = adminUser;
  url.password = adminPassword;
  return url.toString();
}

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
 * Starts a real MariaDB on 127.0.0.1 with its data in a temp directory. `uri` logs in as a
 * read-only login (SELECT and SHOW VIEW on every database, the kind the connector accepts);
 * `adminUri` as a login with ALL PRIVILEGES including FILE and GRANT OPTION, which the
 * connector refuses unless `allow_privileged=1` is given, and with which the security suites
 * show the read-only layers still hold. Returns null (after printing why) when MariaDB is not installed.
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
      `CREATE USER '${adminUser}'@'127.0.0.1' IDENTIFIED BY '${adminPassword}'`,
      `GRANT ALL PRIVILEGES ON *.* TO '${adminUser}'@'127.0.0.1' WITH GRANT OPTION`,
      `CREATE USER '${user}'@'127.0.0.1' IDENTIFIED BY '${password}'`,
      `GRANT SELECT, SHOW VIEW ON *.* TO '${user}'@'127.0.0.1'`,
    ]);
    const uri = `mysql://${user}:${password}@127.0.0.1:${port}/${database}`;
    return {
      uri,
      adminUri: mariadbAdminUri(uri),
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
