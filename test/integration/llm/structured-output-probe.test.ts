/**
 * The CLI's check of JSON-schema output (`probeJsonSchemaOutput`) against the scripted server
 * playing each kind of endpoint: one that enforces the schema, one that takes `response_format`
 * and ignores it (it answers the prompt), one that refuses it, one that refuses the key, and
 * none at all. Only the first is "honoured"; the last two cannot tell, so they say null.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { parseProviderSettings } from '../../../src-main/llm/settings';
import { probeJsonSchemaOutput, structuredOutputProbeName } from '../../../src-main/llm/structured-output-probe';
import { settingsFor, useScriptedServers } from './llm-test-support';

describe('probeJsonSchemaOutput', () => {
  const startServer = useScriptedServers();

  it('is true for an endpoint that enforces the schema, and the request says nothing of the value it needs', async () => {
    const server = await startServer([]);
    expect(await probeJsonSchemaOutput(parseProviderSettings(settingsFor(server)))).toBe(true);
    expect(server.probes).toHaveLength(1);
    const body = server.probes[0]?.body as { messages: { content: string }[]; response_format: { json_schema: { name: string; strict: boolean; schema: { properties: { check: { enum: string[] } } } } } };
    expect(body.response_format.json_schema).toMatchObject({ name: structuredOutputProbeName, strict: true });
    const value = body.response_format.json_schema.schema.properties.check.enum[0] ?? '';
    expect(JSON.stringify(body.messages)).not.toContain(value);
    // The probe takes no turn of the script and is not among the run's requests.
    expect(server.requests).toEqual([]);
    server.verify();
  });

  it('is false for an endpoint that ignores response_format, and for one that refuses it', async () => {
    const ignoring = await startServer([], { ignoreResponseFormat: true });
    expect(await probeJsonSchemaOutput(parseProviderSettings(settingsFor(ignoring)))).toBe(false);
    const refusing = await startServer([], { rejectResponseFormat: true });
    expect(await probeJsonSchemaOutput(parseProviderSettings(settingsFor(refusing)))).toBe(false);
    expect(refusing.probes.map((probe) => probe.status)).toEqual([400]);
  });

  it('is null when it cannot tell: a refused key, or nothing listening', async () => {
    const keyed = await startServer([], { requireApiKey: 'sk-right' });
    expect(await probeJsonSchemaOutput(parseProviderSettings(settingsFor(keyed, { apiKey: 'sk-wrong' })))).toBeNull();
    expect(await probeJsonSchemaOutput(parseProviderSettings(settingsFor(keyed, { apiKey: 'sk-right' })))).toBe(true);

    const port = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === 'object' && address ? address.port : 1));
      });
    });
    expect(await probeJsonSchemaOutput(parseProviderSettings({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', requestTimeoutMs: 2_000 }))).toBeNull();
  });
});
