import { getLlama, type Llama } from 'node-llama-cpp';
import { beforeAll, describe, expect, it } from 'vitest';
import { toolNamed, toolSpecFor } from '../../../src-main/engine/tools/registry';
type ToolName = 'plan' | 'query' | 'replan' | 'simulate' | 'whatif' | 'answer';
import { defaultGrammarLimits, grammarLimitsFor, readToolCallReply, toGrammarSchema, toolCallGrammarSchema } from '../../../src-main/llm/local/grammar-schema';

// A valid call of every tool, and what the grammar must refuse for it.
const validArguments: Record<ToolName, Record<string, unknown>> = {
  plan: { steps: ['Find the candidates', 'Compare their profit'] },
  query: { query: 'SELECT name FROM trade_node LIMIT 5' },
  replan: { steps: ['Check the home node'], reason: 'The first query showed no trade power' },
  answer: { decision: 'venice', rationale: 'Highest profit after the change' },
  simulate: { candidates: ['venice', 'genua'], country: 'Castile', home: null, goods: null },
  whatif: { change: 'UPDATE node SET power = power + 1 WHERE id = :candidate', objective: 'SELECT SUM(profit) FROM node', direction: 'maximize', candidates: ['a', 2], candidatesQuery: null },
};
const tools = (Object.keys(validArguments) as ToolName[]).map((name) => toolSpecFor(toolNamed(name), 'SQLite'));

describe('tool schemas → grammar', () => {
  let llama: Llama;
  beforeAll(async () => {
    llama = await getLlama({ gpu: false, build: 'never' });
  });

  for (const name of Object.keys(validArguments) as ToolName[]) {
    it(`the ${name} tool compiles to a grammar that holds its calls to the tool's own schema`, async () => {
      const grammar = await llama.createGrammarForJsonSchema(toolCallGrammarSchema(tools) as never);
      const text = JSON.stringify({ tool: name, arguments: validArguments[name] });
      expect(() => grammar.parse(text)).not.toThrow();
      const call = readToolCallReply(text, tools);
      expect(call.name).toBe(name);
      // The nulls that stand for left-out optional arguments are gone: the engine's zod schema accepts the call.
      const parsed = toolNamed(name).arguments.safeParse(JSON.parse(call.arguments));
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
      expect(call.arguments).not.toContain('null');
    });
  }

  it('refuses an unknown tool, a missing required argument and an over-long string', async () => {
    const grammar = await llama.createGrammarForJsonSchema(toolCallGrammarSchema(tools, grammarLimitsFor(256)) as never);
    expect(() => grammar.parse(JSON.stringify({ tool: 'drop_table', arguments: {} }))).toThrow();
    expect(() => grammar.parse(JSON.stringify({ tool: 'answer', arguments: { decision: 'x' } }))).toThrow();
    expect(() => grammar.parse(JSON.stringify({ tool: 'query', arguments: { query: 'SELECT 1'.padEnd(500, ' ') } }))).toThrow();
    expect(() => grammar.parse(JSON.stringify({ tool: 'whatif', arguments: { ...validArguments.whatif, direction: 'sideways' } }))).toThrow();
  });

  it('caps every string and array, required fields stay required, optional ones may be null', () => {
    const whatif = toGrammarSchema(toolSpecFor(toolNamed('whatif'), 'SQLite').parameters) as { properties: Record<string, Record<string, unknown>> };
    expect(whatif.properties['change']).toMatchObject({ type: 'string', minLength: 1, maxLength: defaultGrammarLimits.maxStringLength });
    // `direction` has a default, so the model may leave it out.
    expect(whatif.properties['direction']).toEqual({ oneOf: [{ enum: ['maximize', 'minimize'], description: expect.any(String) }, { type: 'null' }] });
    expect(whatif.properties['candidatesQuery']).toMatchObject({ oneOf: [{ type: 'string' }, { type: 'null' }] });
    const candidates = (whatif.properties['candidates'] as { oneOf: Record<string, unknown>[] }).oneOf[0];
    expect(candidates).toMatchObject({ type: 'array', minItems: 1, maxItems: defaultGrammarLimits.maxArrayItems });
    const plan = toGrammarSchema(toolSpecFor(toolNamed('plan'), 'SQLite').parameters, 'plan', grammarLimitsFor(256)) as { properties: { steps: Record<string, unknown> } };
    expect(plan.properties.steps).toMatchObject({ maxItems: 5, items: { type: 'string', maxLength: 96 } });
  });

  it('holds a what-if call to exactly one of candidates and candidatesQuery, as the run offers it', async () => {
    const spec = toolSpecFor(toolNamed('whatif'), 'SQLite');
    // The run offers the schema narrowed (narrowSchema adds the oneOf); the what-if's ignores the run.
    const offered = { ...spec, parameters: await toolNamed('whatif').narrowSchema!(spec.parameters, null as never) };
    const grammar = await llama.createGrammarForJsonSchema(toolCallGrammarSchema([offered]) as never);
    const base = { change: 'UPDATE node SET power = 1 WHERE id = :candidate', objective: 'SELECT 1', direction: null };
    for (const choice of [{ candidates: ['a'] }, { candidatesQuery: 'SELECT id FROM node' }]) {
      const text = JSON.stringify({ tool: 'whatif', arguments: { ...base, ...choice } });
      expect(() => grammar.parse(text)).not.toThrow();
      const parsed = toolNamed('whatif').arguments.safeParse(JSON.parse(readToolCallReply(text, [offered]).arguments));
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    }
    expect(() => grammar.parse(JSON.stringify({ tool: 'whatif', arguments: { ...base, candidates: ['a'], candidatesQuery: 'SELECT 1' } }))).toThrow();
    expect(() => grammar.parse(JSON.stringify({ tool: 'whatif', arguments: base }))).toThrow();
  });

  it('refuses schema features it cannot honour, with the place', () => {
    expect(() => toGrammarSchema({ type: 'object', properties: { a: { $ref: '#/$defs/x' } } }, 'args')).toThrow(/args\.a uses "\$ref"/);
    expect(() => toGrammarSchema({ properties: {} }, 'args')).toThrow(/args has no type/);
  });
});
