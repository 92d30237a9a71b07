import { afterEach, beforeAll } from 'vitest';
import { sqliteFromDqaDump } from './fixtures';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer, type ScriptedServerOptions, type ScriptStep } from './scripted-openai';
import { useSuiteTempDir } from './temp';

/** Cleanups a test registers as it opens things; run after it, last opened first. */
export function useCleanups(): (...cleanup: (() => Promise<void>)[]) => void {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return (...cleanup) => void cleanups.push(...cleanup);
}

/** A SQLite file converted once per test file from a DQA relational dump; the getter gives its path. */
export function useSqliteFromDqaDump(relativeDump: string): () => string {
  const suiteDir = useSuiteTempDir();
  let path = '';
  beforeAll(() => {
    path = sqliteFromDqaDump(relativeDump, suiteDir());
  });
  return () => path;
}

/** Starts a scripted model server for the test that asks; every one is closed after that test. */
export function useScriptedOpenAiServers(): (script: ScriptStep[], options?: ScriptedServerOptions) => Promise<ScriptedOpenAiServer> {
  const servers: ScriptedOpenAiServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  return async (script, options) => {
    const server = await startScriptedOpenAiServer(script, options);
    servers.push(server);
    return server;
  };
}
