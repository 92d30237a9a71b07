import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { findFreeLoopbackPort } from './free-port';
import { spawnServer, stopServer, waitForReadyLine } from './server-process';
import type { TestServer } from './types';
import { makeServerDataDir, removeDataDir } from './unprivileged-user';
import { skippedOnRequest } from './skip';

/** Built by scripts/servers/prepare-neo4j.sh; relative to the repository root (vitest's cwd). */
const harnessDir = resolve(process.cwd(), 'test/servers/neo4j-harness/target');
const mainClass = 'dwb.testserver.Neo4jTestServer';

/** Why the Neo4j suite cannot run here, or null when it can. Cheap: checks files and `java`. */
export function whyNeo4jUnavailable(): string | null {
  const skipped = skippedOnRequest('neo4j');
  if (skipped !== null) return skipped;
  if (spawnSync('java', ['-version']).status !== 0) return 'Neo4j test server needs Java 17+ (not installed)';
  if (!existsSync(join(harnessDir, 'classes')) || !existsSync(join(harnessDir, 'lib'))) {
    return 'Neo4j test server not built (run scripts/servers/prepare-neo4j.sh)';
  }
  return null;
}

/**
 * Starts a real Neo4j 5.26 Community (neo4j-harness, in its own JVM) with Bolt on 127.0.0.1 and
 * its store in a temp directory. Auth is disabled on this throwaway server; the connector still
 * sends the returned credentials. Returns null (after printing why) when it cannot run here.
 */
export async function startNeo4j(): Promise<TestServer | null> {
  const missing = whyNeo4jUnavailable();
  if (missing !== null) {
    console.warn(missing);
    return null;
  }
  const started = Date.now();
  const dir = makeServerDataDir('wb-neo4j-', {});
  const port = await findFreeLoopbackPort();
  const classpath = `${join(harnessDir, 'classes')}:${join(harnessDir, 'lib', '*')}`;
  const server = spawnServer(
    'java',
    // Serial GC and a 1 GB heap keep the JVM modest on a two-core CI machine.
    ['-Xmx1g', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-cp', classpath, mainClass, dir, String(port)],
    {},
  );
  try {
    const boltUri = await waitForReadyLine(server, /^NEO4J_READY (bolt:\/\/\S+)/, 120_000, 'Neo4j');
    return {
      uri: boltUri.replace(/\/$/, ''),
      username: 'neo4j',
      password: 'unused-auth-is-off',
      startupMs: Date.now() - started,
      async stop() {
        // Closing stdin is the launcher's shutdown signal; SIGTERM follows if it lingers.
        server.child.stdin?.end();
        const timer = setTimeout(() => server.child.kill('SIGTERM'), 20_000);
        await stopServer(server, 'SIGTERM', 30_000).catch(() => undefined);
        clearTimeout(timer);
        removeDataDir(dir);
      },
    };
  } catch (error) {
    await stopServer(server, 'SIGKILL').catch(() => undefined);
    removeDataDir(dir);
    throw error;
  }
}
