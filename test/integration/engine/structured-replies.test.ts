/**
 * Every technique's requests carry only the structured replies its definition declares
 * (`structuredReplies`): each `response_format` JSON schema and each offered tool, by name and
 * shape. The techniques of one conversation, AutoPlan and Pearl run here against the scripted
 * server playing an endpoint that only fills the schemas and tools it is offered
 * (`structuredOnly`); the Plan*RAG variants and DeLLMa run on the same endpoint in
 * test/integration/dqa/structured-endpoint.test.ts, which makes the same check.
 */
import { describe, expect, it } from 'vitest';
import { runToDirectory } from '../../../src-main/engine/run-setup';
import { registeredTechniques, techniqueNamed } from '../../../src-main/engine/techniques/registry';
import { parseProviderSettings } from '../../../src-main/llm/settings';
import { undeclaredReplies } from '../../support/declared-replies';
import { useScriptedOpenAiServers, useSqliteFromDqaDump } from '../../support/lifecycle';
import type { ScriptStep } from '../../support/scripted-openai';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();
const database = useSqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql');
const startServer = useScriptedOpenAiServers();

const query = (text: string): ScriptStep => ({ toolCalls: [{ name: 'query', arguments: { query: text } }] });
const answer: ScriptStep = { toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'krakow has the larger value.' } }] };
const plan: ScriptStep = { toolCalls: [{ name: 'plan', arguments: { steps: ['Look up the local value of krakow'] } }] };
const krakow = "SELECT local_value FROM trade_node WHERE trade_node = 'krakow'";

/** Pearl's program: two lookups joined in code; at paper fidelity its steps run one after another, so the script's order holds. */
const program = [
  'New actions:',
  '- None',
  '',
  '1. out1 = LOOKUP(DB, "baltic_sea", "local_value") : the home node value',
  '2. out2 = LOOKUP(DB, "krakow", "local_value") : the value of krakow',
  '3. out3 = CONCAT(out1, out2) : both values',
].join('\n');

const cases: { technique: string; script: ScriptStep[]; fidelity: 'paper' | 'product'; playbook?: string }[] = [
  { technique: 'singlerag', script: [query(krakow), answer], fidelity: 'product' },
  { technique: 'iterrag', script: [query(krakow), answer], fidelity: 'product' },
  { technique: 'planrag', script: [plan, query(krakow), answer], fidelity: 'product' },
  { technique: 'planrag-norp', script: [plan, query(krakow), answer], fidelity: 'product' },
  { technique: 'autoplan', script: [query(krakow), answer], fidelity: 'product', playbook: '1. Look up the local value of each candidate.\n2. Answer with the largest.' },
  {
    technique: 'pearl',
    fidelity: 'paper',
    script: [
      { toolCalls: [{ name: 'program', arguments: { program } }] },
      query("SELECT local_value FROM trade_node WHERE trade_node = 'baltic_sea'"),
      { toolCalls: [{ name: 'output', arguments: { output: 'baltic_sea has 5.1.' } }] },
      query(krakow),
      { toolCalls: [{ name: 'output', arguments: { output: 'krakow has 4.777.' } }] },
      answer,
    ],
  },
];

/** The techniques test/integration/dqa/structured-endpoint.test.ts runs on the same endpoint with the same check. */
const checkedOnTheCli = ['plan-dag', 'plan-dag-faithful', 'plan-dag-base', 'plan-dag-react', 'plan-dag-replan', 'dellma'];

describe('the structured replies a technique asks for are the ones its definition declares', () => {
  it('covers every registered technique, and each declares at least one', () => {
    const covered = new Set([...cases.map((entry) => entry.technique), ...checkedOnTheCli]);
    expect(registeredTechniques().map((technique) => technique.id).filter((id) => !covered.has(id))).toEqual([]);
    for (const technique of registeredTechniques()) expect(technique.structuredReplies.length, technique.id).toBeGreaterThan(0);
  });

  it.each(cases)('$technique on an endpoint that only fills what it is offered', async ({ technique, script, fidelity, playbook }) => {
    const server = await startServer(script, { structuredOnly: true });
    const result = await runToDirectory({
      outDir: tempDir(),
      question: 'Where should SWE place its merchant to maximise its profit on the home node baltic_sea?',
      rules: 'profit(c) = (LV(h) + IV(h)) * TPR(h, c)',
      technique,
      connection: { target: { engine: 'sqlite', path: database() }, description: 'locating 1445' },
      model: { settings: parseProviderSettings({ baseUrl: server.baseUrl, model: 'scripted', toolMode: 'tools' }) },
      simulator: { rules: 'off', known: {} },
      whatIf: false,
      fidelity: { fidelity },
      limits: { maxSteps: 30 },
      ...(playbook ? { playbook } : {}),
    });
    expect(result).toMatchObject({ status: 'answered', decision: 'krakow' });
    server.verify();
    const requests = server.chatRequests();
    expect(requests).toHaveLength(script.length);
    expect(undeclaredReplies(techniqueNamed(technique), requests)).toEqual({ undeclared: [], structured: requests.length });
  });

  it('the check fails for a request its definition does not declare', () => {
    const declared = techniqueNamed('iterrag');
    const request = { chat: { tools: [{ type: 'function', function: { name: 'program', parameters: { type: 'object', properties: { program: { type: 'string' } } } } }], response_format: { type: 'json_schema', json_schema: { name: 'plan_graph', schema: { type: 'object' } } } } };
    expect(undeclaredReplies(declared, [request as never])).toEqual({ undeclared: ['json plan_graph', 'tool program'], structured: 1 });
    // Same name, another shape: not what the definition declares either.
    const answerShape = { chat: { tools: [{ type: 'function', function: { name: 'answer', parameters: { type: 'object', properties: { verdict: { type: 'string' } } } } }] } };
    expect(undeclaredReplies(declared, [answerShape as never]).undeclared).toEqual(['tool answer']);
  });
});
