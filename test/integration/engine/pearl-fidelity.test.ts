import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LoggedEvent } from '../../../src-main/audit/hash-chain';
import type { RunEvent } from '../../../src-main/contract/run';
import { runToDirectory } from '../../../src-main/engine/run-setup';
import { parseProviderSettings } from '../../../src-main/llm/settings';
import { sqliteFromDqaDump } from '../../support/fixtures';
import { startScriptedOpenAiServer, type ReceivedChatRequest, type ScriptedOpenAiServer, type ScriptStep } from '../../support/scripted-openai';
import { useSuiteTempDir, useTempDirs } from '../../support/temp';

const suiteDir = useSuiteTempDir();
const tempDir = useTempDirs();
let database = '';
beforeAll(() => {
  database = sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', suiteDir());
});
const servers: ScriptedOpenAiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const twoLookups = [
  'New actions:',
  '- None',
  '',
  '1. out1 = LOOKUP(DB, "baltic_sea", "local_value") : the home node value',
  '2. out2 = LOOKUP(DB, "krakow", "local_value") : the value of krakow',
  '3. out3 = CONCAT(out1, out2) : both values',
].join('\n');

const tools = (request: ReceivedChatRequest | undefined): string[] => (request?.chat.tools ?? []).map((tool) => tool.function.name);

describe('Pearl at paper fidelity', () => {
  it('runs the steps one after another, one query a step (a failed one is not written again), at 256 tokens a plan and 512 a step', async () => {
    const script: ScriptStep[] = [
      { toolCalls: [{ name: 'program', arguments: { program: twoLookups } }] },
      { expectLastMessageContains: '(its result becomes out1)', toolCalls: [{ name: 'query', arguments: { query: "SELECT nope FROM trade_node WHERE trade_node = 'baltic_sea'" } }] },
      { expectToolResultContains: 'no such column: nope', toolCalls: [{ name: 'output', arguments: { output: 'The query failed: no value.' } }] },
      { expectLastMessageContains: '(its result becomes out2)', toolCalls: [{ name: 'query', arguments: { query: "SELECT local_value FROM trade_node WHERE trade_node = 'krakow'" } }] },
      { toolCalls: [{ name: 'output', arguments: { output: 'krakow has 4.777.' } }] },
      { toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'krakow has a value.' } }] },
    ];
    const server = await startScriptedOpenAiServer(script);
    servers.push(server);
    const outDir = tempDir();
    const result = await runToDirectory({
      outDir,
      question: 'Where should SWE place its merchant to maximise its profit on the home node baltic_sea?',
      rules: 'profit(c) = (LV(h) + IV(h)) * TPR(h, c)',
      technique: 'pearl',
      connection: { target: { engine: 'sqlite', path: database }, description: 'locating 1445' },
      model: { settings: parseProviderSettings({ baseUrl: server.baseUrl, model: 'scripted', toolMode: 'tools' }) },
      simulator: { rules: 'off', known: {} },
      whatIf: false,
      fidelity: { fidelity: 'paper' },
      limits: { maxSteps: 30 },
    });
    expect(result).toMatchObject({ status: 'answered', decision: 'krakow' });
    server.verify();
    const requests = server.chatRequests();
    // After the failed query the step is offered only its output: the paper runs each step once.
    expect(tools(requests[2])).toEqual(['output']);
    expect(requests.map((request) => request.chat.max_tokens)).toEqual([256, 512, 512, 512, 512, 512]);
    expect(requests.every((request) => request.chat.temperature === 0)).toBe(true);
    // In plan order, one at a time: no request arrived before the one before it was answered.
    for (let index = 1; index < requests.length; index += 1) {
      expect((requests[index] as ReceivedChatRequest).receivedAt).toBeGreaterThanOrEqual((requests[index - 1] as ReceivedChatRequest).answeredAt ?? Number.POSITIVE_INFINITY);
    }
    const events = readFileSync(join(outDir, 'run-log.jsonl'), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as LoggedEvent).event as RunEvent);
    const observation = events.find((event): event is Extract<RunEvent, { type: 'observation' }> => event.type === 'observation');
    expect(observation?.text).toBe('Error (unknown-object): SQLite: no such column: nope');
  });
});
