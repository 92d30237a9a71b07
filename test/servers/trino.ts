import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { findFreeLoopbackPort } from './free-port';
import { spawnServer, stopServer, waitForReadyLine } from './server-process';
import { skippedOnRequest } from './skip';
import type { TestServer } from './types';
import { makeServerDataDir, removeDataDir } from './unprivileged-user';

/** Built by scripts/servers/prepare-trino.sh; relative to the repository root (vitest's cwd). */
const harnessDir = resolve(process.cwd(), 'test/servers/trino-harness/target');
const mainClass = 'dwb.testserver.TrinoTestServer';

/** The login the harness's access rules let do anything: fixtures are loaded as it. */
export const trinoAdminUser = 'dwb_admin';
/** A login Trino's access rules allow only to read (any name but the admin's would do). */
export const trinoReaderUser = 'dwb_reader';

/** The JDK 24+ prepare-trino.sh built with, or null when it has not run. */
function harnessJava(): string | null {
  const recorded = join(harnessDir, 'java-home');
  if (!existsSync(recorded)) return null;
  const java = join(readFileSync(recorded, 'utf8').trim(), 'bin', 'java');
  return existsSync(java) ? java : null;
}

/** Why the Trino suites cannot run here, or null when they can. Cheap: checks files and `java`. */
export function whyTrinoUnavailable(): string | null {
  const skipped = skippedOnRequest('trino');
  if (skipped !== null) return skipped;
  if (!existsSync(join(harnessDir, 'classes')) || !existsSync(join(harnessDir, 'lib'))) {
    return 'Trino test server not built (run scripts/servers/prepare-trino.sh; needs Java 24+ and Maven)';
  }
  const java = harnessJava();
  if (java === null || spawnSync(java, ['-version']).status !== 0) {
    return 'Trino test server needs the Java 24+ it was built with (run scripts/servers/prepare-trino.sh again)';
  }
  return null;
}

/** A started Trino coordinator; `uri` logs in as the read-only user, `adminUri` as the admin. */
export interface TrinoTestServer extends TestServer {
  /** `http://127.0.0.1:PORT`, for loading fixtures over Trino's HTTP protocol. */
  readonly httpUrl: string;
  readonly adminUri: string;
}

/**
 * Starts a real Trino 476 coordinator (trino-testing's TestingTrinoServer, in its own JVM) with
 * HTTP on 127.0.0.1, the memory catalogs `memory` and `lake`, and file-based access control
 * (admin: everything; everyone else: read-only). Returns null (after printing why) when it cannot
 * run here. `uri` is `trino://dwb_reader@127.0.0.1:PORT/memory`.
 */
export async function startTrino(): Promise<TrinoTestServer | null> {
  const missing = whyTrinoUnavailable();
  const java = harnessJava();
  if (missing !== null || java === null) {
    console.warn(missing ?? 'Trino test server not built');
    return null;
  }
  const started = Date.now();
  const dir = makeServerDataDir('wb-trino-', {});
  const port = await findFreeLoopbackPort();
  const classpath = `${join(harnessDir, 'classes')}:${join(harnessDir, 'lib', '*')}`;
  const server = spawnServer(
    java,
    // Serial GC, a 1 GB heap and the C1 compiler only keep the JVM modest on a two-core machine.
    ['-Xmx1g', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-cp', classpath, mainClass, dir, String(port)],
    {},
  );
  try {
    const httpUrl = await waitForReadyLine(server, /^TRINO_READY (http:\/\/127\.0\.0\.1:\d+)$/, 180_000, 'Trino');
    const hostPort = httpUrl.replace(/^http:\/\//, '');
    return {
      uri: `trino://${trinoReaderUser}@${hostPort}/memory`,
      adminUri: `trino://${trinoAdminUser}@${hostPort}/memory`,
      httpUrl,
      username: trinoReaderUser,
      password: '',
      startupMs: Date.now() - started,
      async stop() {
        // Closing stdin is the launcher's shutdown signal (it halts); SIGKILL follows if it lingers.
        server.child.stdin?.end();
        await stopServer(server, 'SIGKILL', 20_000).catch(() => undefined);
        removeDataDir(dir);
      },
    };
  } catch (error) {
    await stopServer(server, 'SIGKILL').catch(() => undefined);
    removeDataDir(dir);
    throw error;
  }
}
