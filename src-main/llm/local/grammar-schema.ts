import { WorkbenchError } from '../../contract/errors';
import type { ToolSpec } from '../types';

/**
 * JSON schemas → the subset node-llama-cpp's JSON-schema grammar honours, so a reply decoded
 * under the grammar always parses and always fits the tool's own schema.
 *
 * What the grammar cannot say, and how it is said instead:
 * - every property of an object is emitted (it knows no optional properties): an optional
 *   property becomes "the value or null", and `readToolCallReply` drops the nulls again;
 * - strings and arrays without an upper bound get one (`GrammarLimits`), so a
 *   small model cannot decode forever inside one string (the "endless digits" failure);
 * - `default`, `$schema`, `format` and `pattern` are left out (the grammar has no use for them);
 * - `$ref`, `allOf`, `not`, conditionals and tuple schemas are refused with a clear error.
 */

/** A JSON schema node in the grammar's subset (what `llama.createGrammarForJsonSchema` takes). */
export type GrammarSchema = Readonly<Record<string, unknown>>;

/** Upper bounds put on strings and arrays that have none (or a larger one). */
export interface GrammarLimits {
  maxStringLength: number;
  maxArrayItems: number;
}

export const defaultGrammarLimits: GrammarLimits = { maxStringLength: 1200, maxArrayItems: 50 };

/**
 * Limits that let a reply close within `maxTokens`: a reply cut off at the token limit is
 * unusable JSON, so strings and arrays are kept to what the budget can hold (about three
 * characters a token). Given the schema, the budget is shared among the strings it can hold
 * (an array's items counted as many times as it may have), so one string a tool has (a query)
 * may use most of it and a plan's many steps each a part; bounds the schema sets itself
 * (a query's length, a plan's step count, a decision's candidates) stay where they are lower.
 * Without a schema: a few strings per reply.
 */
export function grammarLimitsFor(maxTokens: number, schema?: unknown): GrammarLimits {
  const clamp = (value: number, low: number, high: number): number => Math.max(low, Math.min(high, Math.floor(value)));
  const maxArrayItems = clamp(maxTokens / 48, 1, defaultGrammarLimits.maxArrayItems);
  // Half the budget for the strings, half for the frame, the names and tokens longer than three characters.
  const slots = schema === undefined ? 4 : Math.max(1, freeStringSlots(schema, maxArrayItems));
  return { maxStringLength: clamp((maxTokens * 3 * 0.5) / slots, 24, defaultGrammarLimits.maxStringLength), maxArrayItems };
}

/** How many free strings (no enum, no const) a value of the schema may hold, arrays at their item cap. */
function freeStringSlots(schema: unknown, maxArrayItems: number): number {
  if (typeof schema !== 'object' || schema === null) return 0;
  const node = schema as Record<string, unknown>;
  if ('const' in node || Array.isArray(node.enum)) return 0;
  const alternatives = (node.anyOf ?? node.oneOf) as unknown;
  const most = (nodes: unknown[]): number => Math.max(0, ...nodes.map((inner) => freeStringSlots(inner, maxArrayItems)));
  if (Array.isArray(alternatives) && node.type !== 'object') return most(alternatives);
  if (node.type === 'string' || (Array.isArray(node.type) && node.type.includes('string'))) return 1;
  if (node.type === 'array') {
    const items = typeof node.maxItems === 'number' ? Math.min(node.maxItems, maxArrayItems) : maxArrayItems;
    return items * (node.items === undefined ? 1 : freeStringSlots(node.items, maxArrayItems));
  }
  if (node.type === 'object') {
    const properties = Object.values((node.properties ?? {}) as Record<string, unknown>);
    return properties.reduce<number>((sum, property) => sum + freeStringSlots(property, maxArrayItems), 0);
  }
  return 0;
}

type Schema = Record<string, unknown>;

const unsupportedKeywords = ['$ref', 'allOf', 'not', 'if', 'then', 'else', 'prefixItems', 'patternProperties', 'dependentSchemas'] as const;

/** Converts one JSON schema (as `z.toJSONSchema` writes it) into the grammar's subset. */
export function toGrammarSchema(schema: unknown, where = 'schema', limits: GrammarLimits = defaultGrammarLimits): GrammarSchema {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new WorkbenchError('invalid-request', `${where} is not a JSON schema object`);
  }
  const node = schema as Schema;
  for (const keyword of unsupportedKeywords) {
    if (keyword in node) throw new WorkbenchError('unsupported', `${where} uses "${keyword}", which constrained decoding cannot honour`);
  }
  const described = typeof node.description === 'string' ? { description: node.description } : {};
  if ('const' in node) return { const: node.const as never, ...described };
  if (Array.isArray(node.enum)) return { enum: node.enum as unknown[], ...described };
  const alternatives = (node.anyOf ?? node.oneOf) as unknown;
  if (node.type === 'object' && isRequiredChoice(alternatives)) return requiredChoice(node, alternatives, where, described, limits);
  if (Array.isArray(alternatives)) {
    return { oneOf: alternatives.map((alternative, index) => toGrammarSchema(alternative, `${where}.anyOf[${index}]`, limits)), ...described };
  }
  const type = node.type;
  if (Array.isArray(type)) return { oneOf: type.map((single, index) => toGrammarSchema({ ...node, type: single }, `${where}.type[${index}]`, limits)), ...described };
  switch (type) {
    case 'object':
      return objectSchema(node, where, described, limits);
    case 'array': {
      const items = node.items === undefined ? { type: ['string', 'number', 'boolean', 'null'] } : node.items;
      const maxItems = typeof node.maxItems === 'number' ? Math.min(node.maxItems, limits.maxArrayItems) : limits.maxArrayItems;
      const minItems = typeof node.minItems === 'number' ? Math.min(node.minItems, maxItems) : 0;
      return { type: 'array', items: toGrammarSchema(items, `${where}.items`, limits), ...(minItems > 0 ? { minItems } : {}), maxItems, ...described };
    }
    case 'string': {
      const maxLength = typeof node.maxLength === 'number' ? Math.min(node.maxLength, limits.maxStringLength) : limits.maxStringLength;
      const minLength = typeof node.minLength === 'number' ? Math.min(node.minLength, maxLength) : 0;
      return { type: 'string', ...(minLength > 0 ? { minLength } : {}), maxLength, ...described };
    }
    case 'number':
    case 'integer':
    case 'boolean':
    case 'null':
      return { type, ...described };
    default:
      throw new WorkbenchError('unsupported', `${where} has no type constrained decoding knows (${JSON.stringify(type ?? null)})`);
  }
}

function objectSchema(node: Schema, where: string, described: object, limits: GrammarLimits): GrammarSchema {
  const properties = (node.properties ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
  const converted: Record<string, GrammarSchema> = {};
  for (const [name, property] of Object.entries(properties)) {
    const inner = toGrammarSchema(property, `${where}.${name}`, limits);
    converted[name] = required.has(name) ? inner : { oneOf: [inner, { type: 'null' }] };
  }
  return { type: 'object', properties: converted, additionalProperties: false, ...described };
}

/** `oneOf: [{required: [a]}, {required: [b]}]` beside an object's properties: "exactly one of a and b". */
function isRequiredChoice(alternatives: unknown): alternatives is { required: string[] }[] {
  return (
    Array.isArray(alternatives) &&
    alternatives.length > 0 &&
    alternatives.every((alternative) => typeof alternative === 'object' && alternative !== null && Object.keys(alternative).length === 1 && Array.isArray((alternative as Schema).required))
  );
}

/**
 * "Exactly one of" said as one object schema per choice: that choice's properties required, the
 * other choices' properties left out, so the decoder can write only a call that fits.
 */
function requiredChoice(node: Schema, choices: { required: string[] }[], where: string, described: object, limits: GrammarLimits): GrammarSchema {
  const { oneOf: _oneOf, anyOf: _anyOf, ...base } = node;
  const properties = (node.properties ?? {}) as Record<string, unknown>;
  const required = Array.isArray(node.required) ? (node.required as string[]) : [];
  const choiceNames = new Set(choices.flatMap((choice) => choice.required));
  return {
    oneOf: choices.map((choice, index) => {
      const kept = Object.fromEntries(Object.entries(properties).filter(([name]) => !choiceNames.has(name) || choice.required.includes(name)));
      return objectSchema({ ...base, properties: kept, required: [...required, ...choice.required] }, `${where}.oneOf[${index}]`, {}, limits);
    }),
    ...described,
  };
}

/**
 * The schema of one tool-call reply: `{"tool": "<name>", "arguments": {...}}`, one alternative
 * per offered tool, each with that tool's own arguments.
 */
export function toolCallGrammarSchema(tools: readonly ToolSpec[], limits: GrammarLimits | ((tool: ToolSpec) => GrammarLimits) = defaultGrammarLimits): GrammarSchema {
  if (tools.length === 0) throw new WorkbenchError('invalid-request', 'A tool-call reply needs at least one tool');
  // Limits per tool (`grammarLimitsFor(maxTokens, tool.parameters)`): each tool's budget is its own.
  const limitsOf = typeof limits === 'function' ? limits : () => limits;
  const alternatives = tools.map((tool) => ({
    type: 'object',
    properties: { tool: { const: tool.name }, arguments: toGrammarSchema(tool.parameters, `the arguments of tool "${tool.name}"`, limitsOf(tool)) },
    additionalProperties: false,
  }));
  return alternatives.length === 1 ? (alternatives[0] as GrammarSchema) : { oneOf: alternatives };
}

/** A reply decoded under `toolCallGrammarSchema`, read back as a tool name and its arguments. */
export function readToolCallReply(text: string, tools: readonly ToolSpec[]): { name: string; arguments: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new WorkbenchError('internal', `The constrained reply is not JSON (${(error as Error).message}): ${text.slice(0, 200)}`);
  }
  const call = parsed as { tool?: unknown; arguments?: unknown };
  const tool = tools.find((candidate) => candidate.name === call.tool);
  if (!tool || typeof call.arguments !== 'object' || call.arguments === null) {
    throw new WorkbenchError('internal', `The constrained reply is not a call of an offered tool: ${text.slice(0, 200)}`);
  }
  return { name: tool.name, arguments: JSON.stringify(withoutNullOptionals(call.arguments, tool.parameters)) };
}

/** Removes the nulls that stand for left-out optional properties (see `objectSchema`). */
export function withoutNullOptionals(value: unknown, schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return value;
  const node = schema as Schema;
  if (Array.isArray(value)) return node.items ? value.map((item) => withoutNullOptionals(item, node.items)) : value;
  if (typeof value !== 'object' || value === null || node.type !== 'object') return value;
  const properties = (node.properties ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
  const result: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value as Record<string, unknown>)) {
    if (item === null && !required.has(name)) continue;
    result[name] = withoutNullOptionals(item, properties[name]);
  }
  return result;
}
