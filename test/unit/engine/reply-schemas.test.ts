/**
 * The JSON schemas Plan*RAG and DeLLMa send with the replies they parse: each is one both
 * structured-output paths take (the local grammar converts it; OpenAI's strict mode needs every
 * property required and no others), it admits what the technique's reader accepts, and it
 * rejects what the prompt rules out (an unknown not asked for, a likelihood off the scale, an
 * option that is not offered, a node without its fields).
 */
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { readPlan } from '../../../src-main/engine/techniques/plan-dag/plan-graph';
import { readDecision, readNodeAnswer } from '../../../src-main/engine/techniques/plan-dag/answers';
import { decisionReply as nodeDecisionReply, nodeAnswerReply, planReply, reactStepReply, readReactStep } from '../../../src-main/engine/techniques/plan-dag/reply-schemas';
import { decisionReply, forecastReply, rankingReply, shortlistReply } from '../../../src-main/engine/techniques/dellma/reply-schemas';
import { mapDecision, parseForecast, parseRanking } from '../../../src-main/engine/techniques/dellma/responses';
import type { FactorSpec } from '../../../src-main/engine/techniques/dellma/belief';
import { toGrammarSchema } from '../../../src-main/llm/local/grammar-schema';
import type { OutputConstraint } from '../../../src-main/llm/types';

const ajv = new Ajv({ strict: true, allowUnionTypes: true });
const schemaOf = (output: OutputConstraint): Record<string, unknown> => {
  if (output.kind !== 'json') throw new Error('not a JSON reply');
  return output.schema;
};
const fits = (output: OutputConstraint, value: unknown): boolean => ajv.compile(schemaOf(output))(value);

/** Every object of the schema lists all its properties as required and allows no others (OpenAI strict mode). */
function strictObjects(schema: unknown, where = '$'): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  if (Array.isArray(schema)) return schema.flatMap((item, index) => strictObjects(item, `${where}[${index}]`));
  const node = schema as Record<string, unknown>;
  const problems: string[] = [];
  if (node.type === 'object') {
    const properties = Object.keys((node.properties ?? {}) as object);
    const required = (node.required ?? []) as string[];
    if (node.additionalProperties !== false) problems.push(`${where} allows other properties`);
    for (const name of properties) if (!required.includes(name)) problems.push(`${where}.${name} is optional`);
  }
  for (const [key, value] of Object.entries(node)) problems.push(...strictObjects(value, `${where}.${key}`));
  return problems;
}

const factors: FactorSpec[] = [
  { name: 'rain in spring', scope: { kind: 'shared' } },
  { name: 'price of pears', scope: { kind: 'shared' } },
];
const fixedFactors: FactorSpec[] = [...factors.slice(0, 1), { name: 'frost', scope: { kind: 'shared' }, fixedValues: ['none', 'late'] }];

const every: [string, OutputConstraint][] = [
  ['plan', planReply(6)],
  ['node answer', nodeAnswerReply],
  ['final decision', nodeDecisionReply],
  ['ReAct step', reactStepReply(false)],
  ['final ReAct step', reactStepReply(true)],
  ['forecast', forecastReply(factors)],
  ['forecast with fixed outcomes', forecastReply(fixedFactors)],
  ['ranking', rankingReply(4)],
  ['shortlist', shortlistReply(['north', 'south', 'east'], 2)],
  ['baseline decision', decisionReply(['north', 'south'])],
];

describe('reply schemas', () => {
  it.each(every)('the %s schema is strict-compatible, converts to a grammar and compiles', (_label, output) => {
    expect(output.kind).toBe('json');
    expect(strictObjects(schemaOf(output))).toEqual([]);
    expect(() => toGrammarSchema(schemaOf(output))).not.toThrow();
    expect(() => ajv.compile(schemaOf(output))).not.toThrow();
  });

  it('a plan that fits the schema is a plan readPlan accepts; one without compute, or with too many nodes, does not fit', () => {
    const plan = {
      nodes: [
        { id: 'Q1.1', question: 'Which depots are there?', parents: [], compute: false },
        { id: 'Q2.1', question: 'Which of <A1.1> is emptiest?', parents: ['Q1.1'], compute: true },
      ],
      final: 'Q2.1',
    };
    expect(fits(planReply(6), plan)).toBe(true);
    expect(readPlan(JSON.stringify(plan), new Set(), 6)).toMatchObject({ ok: true });
    expect(fits(planReply(6), { ...plan, nodes: [{ id: 'Q1.1', question: 'x', parents: [] }] })).toBe(false);
    expect(fits(planReply(1), plan)).toBe(false);
    expect(fits(planReply(6), { ...plan, extra: 1 })).toBe(false);
  });

  it('node answers: a scalar or a list of scalars with an explanation; the decision needs a rationale', () => {
    for (const answer of ['depot_north', 5.2, true, ['a', 3]]) {
      expect(fits(nodeAnswerReply, { answer, explanation: 'why' })).toBe(true);
      expect(readNodeAnswer(JSON.stringify({ answer, explanation: 'why' }))).toEqual({ value: answer, explanation: 'why' });
    }
    expect(fits(nodeAnswerReply, { answer: { a: 1 }, explanation: 'why' })).toBe(false);
    expect(fits(nodeAnswerReply, { answer: 'x' })).toBe(false);
    expect(fits(nodeDecisionReply, { decision: 'depot_north', rationale: 'emptiest' })).toBe(true);
    expect(readDecision(JSON.stringify({ decision: 'depot_north', rationale: 'emptiest' }))).toEqual({ decision: 'depot_north', rationale: 'emptiest' });
    expect(fits(nodeDecisionReply, { decision: 'depot_north' })).toBe(false);
  });

  it('a ReAct step is a query to run or the answer, from the schema\'s object or the plain-text form', () => {
    const query = { action: 'query', query: 'SELECT 1', answer: '', explanation: '' };
    const answer = { action: 'answer', query: '', answer: ['a', 'b'], explanation: 'two' };
    expect(fits(reactStepReply(false), query)).toBe(true);
    expect(fits(reactStepReply(false), answer)).toBe(true);
    expect(fits(reactStepReply(true), { action: 'answer', query: '', decision: 'depot_north', rationale: 'emptiest' })).toBe(true);
    expect(fits(reactStepReply(false), { action: 'look', query: '', answer: '', explanation: '' })).toBe(false);
    expect(readReactStep(JSON.stringify(query))).toEqual({ query: 'SELECT 1' });
    const read = readReactStep(JSON.stringify(answer));
    expect('answer' in read && readNodeAnswer(read.answer)).toEqual({ value: ['a', 'b'], explanation: 'two' });
    const decided = readReactStep(JSON.stringify({ action: 'answer', query: '', decision: 'depot_north', rationale: 'emptiest' }));
    expect('answer' in decided && readDecision(decided.answer)).toEqual({ decision: 'depot_north', rationale: 'emptiest' });
    expect(readReactStep('Query:\nSELECT 2')).toEqual({ query: 'Query:\nSELECT 2' });
    expect(readReactStep('Answer:\n{"answer": 3}')).toEqual({ answer: '{"answer": 3}' });
    expect(readReactStep('{"answer": 3, "explanation": "x"}')).toEqual({ answer: '{"answer": 3, "explanation": "x"}' });
  });

  it('the forecast schema takes exactly the asked unknowns, three outcomes each, words of the scale; fixed outcomes as set', () => {
    const forecast = {
      factors: factors.map((factor) => ({
        name: factor.name,
        values: [
          { value: 'low', likelihood: 'likely' },
          { value: 'mid', likelihood: 'very likely' },
          { value: 'high', likelihood: 'somewhat unlikely' },
        ],
      })),
    };
    expect(fits(forecastReply(factors), forecast)).toBe(true);
    expect(parseForecast(JSON.stringify(forecast), factors)).toMatchObject({ ok: true });
    const offScale = structuredClone(forecast);
    offScale.factors[0]!.values[0]!.likelihood = 'Very_Likely';
    expect(fits(forecastReply(factors), offScale)).toBe(false);
    const unasked = structuredClone(forecast);
    unasked.factors[1]!.name = 'price of plums';
    expect(fits(forecastReply(factors), unasked)).toBe(false);
    expect(fits(forecastReply(factors), { factors: forecast.factors.slice(0, 1) })).toBe(false);
    expect(fits(forecastReply(factors), { factors: [{ ...forecast.factors[0], values: forecast.factors[0]!.values.slice(0, 2) }, forecast.factors[1]] })).toBe(false);

    const fixed = {
      factors: [
        forecast.factors[0],
        { name: 'frost', values: [{ value: 'none', likelihood: 'likely' }, { value: 'late', likelihood: 'unlikely' }] },
      ],
    };
    expect(fits(forecastReply(fixedFactors), fixed)).toBe(true);
    expect(parseForecast(JSON.stringify(fixed), fixedFactors)).toMatchObject({ ok: true });
    expect(fits(forecastReply(fixedFactors), { factors: [fixed.factors[0], { name: 'frost', values: [{ value: 'early', likelihood: 'likely' }, { value: 'late', likelihood: 'unlikely' }] }] })).toBe(false);
  });

  it('rankings number every scenario of the batch; shortlists and baseline decisions name offered options only', () => {
    expect(fits(rankingReply(4), { decision: 2, rank: [2, 1, 4, 3], explanation: 'x' })).toBe(true);
    expect(parseRanking(JSON.stringify({ decision: 2, rank: [2, 1, 4, 3], explanation: 'x' }))).toMatchObject({ ok: true, value: { decision: 2, rank: [2, 1, 4, 3] } });
    expect(fits(rankingReply(4), { decision: 5, rank: [2, 1, 4, 3], explanation: 'x' })).toBe(false);
    expect(fits(rankingReply(4), { decision: 2, rank: [2, 1], explanation: 'x' })).toBe(false);
    expect(fits(shortlistReply(['north', 'south', 'east'], 2), { keep: ['south', 'north'] })).toBe(true);
    expect(fits(shortlistReply(['north', 'south', 'east'], 2), { keep: ['south', 'west'] })).toBe(false);
    expect(fits(shortlistReply(['north', 'south', 'east'], 2), { keep: ['south', 'north', 'east'] })).toBe(false);
    expect(fits(decisionReply(['north', 'south']), { decision: 'south', explanation: 'x' })).toBe(true);
    expect(mapDecision(JSON.stringify({ decision: 'south', explanation: 'x' }), ['north', 'south'])).toBe(1);
    expect(fits(decisionReply(['north', 'south']), { decision: 'Option 2', explanation: 'x' })).toBe(false);
  });
});
