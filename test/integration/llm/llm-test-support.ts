import { afterEach } from 'vitest';
import { WorkbenchError } from '../../../src-main/contract/errors';
import type { ProviderSettingsInput } from '../../../src-main/llm/settings';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer, type ScriptedServerOptions, type ScriptStep } from '../../support/scripted-openai';

/** Starts scripted servers that are closed after each test. */
export function useScriptedServers(): (script: ScriptStep[], options?: ScriptedServerOptions) => Promise<ScriptedOpenAiServer> {
  const started: ScriptedOpenAiServer[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((server) => server.close()));
  });
  return async (script, options) => {
    const server = await startScriptedOpenAiServer(script, options);
    started.push(server);
    return server;
  };
}

/** Settings for a scripted server: native tools, no streaming, a short timeout, fast to fail. */
export function settingsFor(server: Pick<ScriptedOpenAiServer, 'baseUrl'>, overrides: Partial<ProviderSettingsInput> = {}): ProviderSettingsInput {
  return { baseUrl: server.baseUrl, model: 'scripted-model', requestTimeoutMs: 10_000, maxRetries: 2, stream: false, toolMode: 'tools', ...overrides };
}

/** Awaits a promise that must reject with a WorkbenchError, and returns it with the time taken. */
export async function failureOf(promise: Promise<unknown>): Promise<{ error: WorkbenchError; elapsedMs: number }> {
  const started = performance.now();
  try {
    await promise;
  } catch (error) {
    if (!(error instanceof WorkbenchError)) throw new Error(`expected a WorkbenchError, got ${String(error)}`, { cause: error });
    return { error, elapsedMs: performance.now() - started };
  }
  throw new Error('expected a failure, but the call succeeded');
}

export const runQueryTool = {
  name: 'run_query',
  description: 'Runs a read-only SQL query and returns the rows.',
  parameters: { type: 'object', properties: { sql: { type: 'string' } }, required: ['sql'] },
};
