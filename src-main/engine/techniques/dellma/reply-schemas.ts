import type { OutputConstraint } from '../../../llm/types';
import { valuesPerFactor, verbalScale, type FactorSpec } from './belief';

/**
 * The JSON schemas of DeLLMa's structured replies: the forecast, a minibatch ranking, the
 * shortlist of options and a baseline's decision. Each call that expects one carries its schema
 * as `output` (a grammar for a local model, `response_format` over HTTP where the endpoint
 * honours it); the readers in ./responses.ts still check every answer and the repair turns stay.
 * Every object lists all its properties as required and allows no others (OpenAI's strict mode,
 * the local grammar). The schemas say what the prompt asks for, no more: the asked unknowns by
 * name, three outcomes each (or the analyst's fixed ones), a word of the verbal scale.
 */

const text = { type: 'string' } as const;

/** One forecast: every asked unknown with its outcomes and their likelihood words. */
export function forecastReply(factors: readonly FactorSpec[]): OutputConstraint {
  const outcomes = (count: number, values?: readonly string[]) => ({
    type: 'array',
    minItems: count,
    maxItems: count,
    items: {
      type: 'object',
      properties: { value: values ? { type: 'string', enum: [...values] } : text, likelihood: { type: 'string', enum: [...verbalScale] } },
      required: ['value', 'likelihood'],
      additionalProperties: false,
    },
  });
  // One item schema per unknown when the analyst fixed some outcomes; otherwise one shared shape.
  const fixed = factors.some((factor) => factor.fixedValues);
  const factorItem = (factor?: FactorSpec) => ({
    type: 'object',
    properties: {
      name: factor ? { type: 'string', enum: [factor.name] } : { type: 'string', enum: factors.map((entry) => entry.name) },
      values: factor?.fixedValues ? outcomes(factor.fixedValues.length, factor.fixedValues) : outcomes(valuesPerFactor),
    },
    required: ['name', 'values'],
    additionalProperties: false,
  });
  return {
    kind: 'json',
    name: 'forecast',
    schema: {
      type: 'object',
      properties: { factors: { type: 'array', minItems: factors.length, maxItems: factors.length, items: fixed ? { anyOf: factors.map(factorItem) } : factorItem() } },
      required: ['factors'],
      additionalProperties: false,
    },
  };
}

/** One minibatch ranking: the best scenario's number, every number best first, and why. */
export function rankingReply(size: number): OutputConstraint {
  const scenario = { type: 'integer', minimum: 1, maximum: size };
  return {
    kind: 'json',
    name: 'ranking',
    schema: {
      type: 'object',
      properties: { decision: scenario, rank: { type: 'array', minItems: size, maxItems: size, items: scenario }, explanation: text },
      required: ['decision', 'rank', 'explanation'],
      additionalProperties: false,
    },
  };
}

/** The options kept for weighing, each spelled as listed. */
export function shortlistReply(candidates: readonly string[], limit: number): OutputConstraint {
  return {
    kind: 'json',
    name: 'shortlist',
    schema: {
      type: 'object',
      properties: { keep: { type: 'array', minItems: Math.min(2, candidates.length), maxItems: limit, items: { type: 'string', enum: [...candidates] } } },
      required: ['keep'],
      additionalProperties: false,
    },
  };
}

/** A baseline's choice (zero-shot, chain of thought, self-consistency): one option by name. */
export function decisionReply(actions: readonly string[]): OutputConstraint {
  return {
    kind: 'json',
    name: 'decision',
    schema: { type: 'object', properties: { decision: { type: 'string', enum: [...actions] }, explanation: text }, required: ['decision', 'explanation'], additionalProperties: false },
  };
}
