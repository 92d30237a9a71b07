import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseRunLogLines, TraceReader } from '../../../src-main/audit/run-trace';
import { runToDirectory } from '../../../src-main/engine/run-setup';
import type { ChatMessage } from '../../../src-main/llm/types';
import { registerTechnique, registeredTechniques, techniqueIds, techniqueNamed } from '../../../src-main/engine/techniques/registry';
import type { TechniqueDefinition } from '../../../src-main/engine/techniques/technique';
import { toolsOffered } from '../../../src-main/engine/techniques/conversation';
import { toolReplies } from '../../../src-main/engine/techniques/structured-replies';
import { registeredTools, toolNamed } from '../../../src-main/engine/tools/registry';
import { parseTextReply, textProtocolInstructions } from '../../../src-main/engine/text-protocol';
import { parseProviderSettings } from '../../../src-main/llm/settings';
import { sqliteFromDqaDump } from '../../support/fixtures';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer } from '../../support/scripted-openai';
import { useSuiteTempDir, useTempDirs } from '../../support/temp';

const suiteDir = useSuiteTempDir();
const tempDir = useTempDirs();
let database = '';
beforeAll(() => {
  database = sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', suiteDir());
});
const servers: ScriptedOpenAiServer[] = [];
const unregister: (() => void)[] = [];
afterEach(async () => {
  unregister.splice(0).forEach((remove) => remove());
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe('the tool registry', () => {
  it('defines each tool once: name, schema, description, text form', () => {
    expect(registeredTools().map((tool) => tool.name)).toEqual(['plan', 'replan', 'query', 'simulate', 'whatif', 'answer']);
    expect(toolNamed('query').description('SQLite SQL')).toContain('Write it in SQLite SQL.');
    expect(toolNamed('plan').arguments.safeParse({ steps: [] }).success).toBe(false);
    expect(() => toolNamed('delete')).toThrow(/No tool is registered as "delete" \(registered: plan, replan, query/);
    expect(textProtocolInstructions([toolNamed('query'), toolNamed('answer')])).toContain('Final Answer: <the decision only>');
  });

  it('reads a plain-text reply through each tool, in registry order', () => {
    const reply = parseTextReply('Thought: check the node\nAction: query\nAction Input:\n```sql\nSELECT 1\n```\nObservation: invented', registeredTools());
    expect(reply).toEqual({ thought: 'check the node', calls: [{ name: 'query', arguments: { query: 'SELECT 1' } }] });
    const planned = parseTextReply('Re-plan:\nReason: krakow feeds it\n1. a\n2. b', registeredTools());
    expect(planned.calls).toEqual([{ name: 'replan', arguments: { steps: ['a', 'b'], reason: 'krakow feeds it' } }]);
  });
});

describe('the technique registry', () => {
  it('lists the techniques and offers their tools as before', () => {
    expect(techniqueIds()).toEqual(['singlerag', 'iterrag', 'planrag', 'planrag-norp', 'plan-dag', 'plan-dag-faithful', 'plan-dag-base', 'plan-dag-react', 'plan-dag-replan', 'pearl', 'autoplan', 'dellma']);
    expect(registeredTechniques().map((technique) => technique.label)).toContain('IterRAG (ReAct)');
    expect(() => techniqueNamed('pearl-x')).toThrow(/No technique "pearl-x": the techniques are singlerag, iterrag, planrag, planrag-norp, plan-dag, plan-dag-faithful, plan-dag-base, plan-dag-react, plan-dag-replan, pearl, autoplan, dellma$/);
    const planrag = { plansFirst: true, replans: true, queryLimit: null };
    expect(toolsOffered(planrag, { planned: false, queries: 0 })).toEqual(['plan']);
    expect(toolsOffered(planrag, { planned: true, queries: 3, canSimulate: true })).toEqual(['query', 'replan', 'simulate', 'answer']);
    expect(toolsOffered({ plansFirst: false, replans: false, queryLimit: 1 }, { planned: false, queries: 1, canWhatIf: true })).toEqual(['whatif', 'answer']);
  });

  it('refuses a second technique of the same id and ids of the wrong form', () => {
    expect(() => registerTechnique({ ...techniqueNamed('iterrag') })).toThrow(/already registered/);
    expect(() => registerTechnique({ ...techniqueNamed('iterrag'), id: 'Bad Id' })).toThrow(/lower-case/);
  });

  /**
   * A technique that is not one conversation: a fixed two-node plan graph whose nodes are
   * answered in conversations of their own (one query each), then a third conversation that
   * sees only the nodes' observations and must answer. Registered here, nowhere in the engine.
   */
  const twoNodes: TechniqueDefinition = {
    id: 'toy-two-nodes',
    label: 'Two sub-questions',
    summary: 'Two independent sub-questions, then an answer from their results.',
    method: '# Method\nAnswer the sub-question you are given with one query.',
    structuredReplies: toolReplies([toolNamed('query'), toolNamed('answer')]),
    reviews: [{ subject: 'query', what: 'each sub-question’s query' }],
    run: async (run) => {
      const nodes = [
        { id: 'home', text: 'The home node values', dependsOn: [] },
        { id: 'flow', text: 'Who feeds the home node', dependsOn: [] },
        { id: 'decide', text: 'Decide', dependsOn: ['home', 'flow'] },
      ];
      run.emit({ type: 'plan', step: 0, steps: nodes.map((node) => node.text), nodes });
      const findings: string[] = [];
      for (const node of nodes.slice(0, 2)) {
        const opened = await run.openConversation();
        if (!Array.isArray(opened)) return opened;
        const messages: ChatMessage[] = [...opened, { role: 'user', content: `Sub-question ${node.id}: ${node.text}` }];
        const limit = run.limitReached();
        if (limit) return limit;
        const turn = await run.turn(messages, [toolNamed('query')]);
        if ('end' in turn) return turn.end;
        const ended = await run.perform(messages, turn, { node: node.id });
        if (ended) return ended;
        findings.push(`${node.id}: ${messages.at(-1)?.content ?? ''}`);
      }
      const messages: ChatMessage[] = [{ role: 'user', content: `Decide from these findings:\n${findings.join('\n')}` }];
      const turn = await run.turn(messages, [toolNamed('answer')]);
      if ('end' in turn) return turn.end;
      return (await run.perform(messages, turn, { node: 'decide' })) ?? run.finish('failed', 'no answer');
    },
  };

  /** Runs a registered technique on the Locating database into `outDir`, as `dwb run` does, against a scripted model. */
  const runTechnique = (technique: string, baseUrl: string, outDir: string) =>
    runToDirectory({
      outDir,
      question: 'Where should SWE place its merchant to maximise profit at baltic_sea?',
      rules: '',
      technique,
      connection: { target: { engine: 'sqlite', path: database }, description: 'locating 1445' },
      model: { settings: parseProviderSettings({ baseUrl, model: 'scripted', toolMode: 'tools' }) },
      simulator: { rules: 'off', known: {} },
      whatIf: false,
    });

  it('runs a registered technique that is not one conversation through the shared set-up, with node ids in events, cells and the trace', async () => {
    unregister.push(registerTechnique(twoNodes));
    const server = await startScriptedOpenAiServer([
      { expectLastMessageContains: 'Sub-question home', expectTools: ['query'], toolCalls: [{ name: 'query', arguments: { query: "SELECT local_value FROM trade_node WHERE trade_node = 'baltic_sea'" } }], usage: { promptTokens: 50, completionTokens: 5 } },
      { expectLastMessageContains: 'Sub-question flow', expectTools: ['query'], toolCalls: [{ name: 'query', arguments: { query: "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source" } }], usage: { promptTokens: 60, completionTokens: 6 } },
      { expectLastMessageContains: 'krakow', expectTools: ['answer'], toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'It feeds the home node.' } }], usage: { promptTokens: 70, completionTokens: 7 } },
    ]);
    servers.push(server);
    const outDir = tempDir();
    const result = await runTechnique('toy-two-nodes', server.baseUrl, outDir);
    server.verify();
    expect(result).toMatchObject({ status: 'answered', decision: 'krakow', steps: 3, promptTokens: 180, completionTokens: 18 });
    // Each conversation was its own: the third request saw neither sub-question's conversation.
    expect(server.chatRequests()).toHaveLength(3);
    expect(JSON.stringify(server.chatRequests()[2])).not.toContain('Sub-question home');

    const trace = TraceReader.of(parseRunLogLines(readFileSync(join(outDir, 'run-log.jsonl'), 'utf8')));
    expect(trace.unknown).toBe(0);
    expect(trace.start?.event.technique).toBe('toy-two-nodes');
    expect(trace.plans[0]?.nodes.find((node) => node.id === 'decide')?.dependsOn).toEqual(['home', 'flow']);
    expect(trace.queryList().map((query) => query.node)).toEqual(['home', 'flow']);
    const notebook = JSON.parse(readFileSync(join(outDir, 'notebook.json'), 'utf8')) as { cells: { kind: string; provenance: { node?: string } }[] };
    expect(notebook.cells.filter((cell) => cell.kind === 'query').map((cell) => cell.provenance.node)).toEqual(['home', 'flow']);
    expect(notebook.cells.at(-1)?.kind).toBe('decision');
  });

  it('fails a run whose technique stops for a review it does not declare, before the query runs, naming the stop', async () => {
    // The same technique declaring no stops: its first query asks the gate for a review all the same.
    unregister.push(registerTechnique({ ...twoNodes, id: 'toy-undeclared', reviews: [] }));
    const server = await startScriptedOpenAiServer([
      { expectLastMessageContains: 'Sub-question home', expectTools: ['query'], toolCalls: [{ name: 'query', arguments: { query: "SELECT local_value FROM trade_node WHERE trade_node = 'baltic_sea'" } }] },
    ]);
    servers.push(server);
    const outDir = tempDir();
    const result = await runTechnique('toy-undeclared', server.baseUrl, outDir);
    server.verify();
    expect(result).toMatchObject({ status: 'failed' });
    expect(result.message).toContain('Two sub-questions stopped for a review of a query, which its definition does not declare (reviews: none)');
    const trace = TraceReader.of(parseRunLogLines(readFileSync(join(outDir, 'run-log.jsonl'), 'utf8')));
    expect(trace.queryList()).toEqual([]);
    // The run ended in its log with that status and message, as any failed run does.
    expect(trace.ended).toMatchObject({ status: 'failed', message: expect.stringContaining('does not declare (reviews: none)') });
  });
});
