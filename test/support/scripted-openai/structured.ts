import Ajv from 'ajv';
import { structuredOutputProbeName } from '../../../src-main/llm/structured-output-probe';
import type { ScriptedServerOptions, ScriptedTurn, WireChatRequest } from './script';

/**
 * The server's structured-output behaviour: the CLI's probe (answered by the server itself, so
 * a script never scripts it), and `structuredOnly`, which plays an endpoint that honours
 * `response_format` JSON schemas and ONLY fills the schemas and tools it is offered.
 */

/** Whether a request is the CLI's check of JSON-schema output (`llm/structured-output-probe.ts`). */
export function isStructuredOutputProbe(body: unknown): boolean {
  const format = (body as { response_format?: { json_schema?: { name?: unknown } } } | null)?.response_format;
  return format?.json_schema?.name === structuredOutputProbeName;
}

/** The probe's answer: the smallest value of the schema, or prose when the server plays one that ignores `response_format`. */
export function probeAnswer(body: unknown, options: ScriptedServerOptions): string {
  if (options.ignoreResponseFormat) return 'Hello! How can I help you today?';
  return JSON.stringify(smallestOf((body as { response_format: { json_schema: { schema: unknown } } }).response_format.json_schema.schema));
}

/** The smallest value a JSON schema allows: an enum's first value, required properties only, the fewest items. */
export function smallestOf(schema: unknown): unknown {
  const node = (schema ?? {}) as Record<string, unknown>;
  if ('const' in node) return node.const;
  if (Array.isArray(node.enum)) return node.enum[0];
  const alternatives = (node.anyOf ?? node.oneOf) as unknown[] | undefined;
  if (Array.isArray(alternatives) && alternatives.length > 0) return smallestOf(alternatives[0]);
  switch (Array.isArray(node.type) ? node.type[0] : node.type) {
    case 'object': {
      const properties = (node.properties ?? {}) as Record<string, unknown>;
      const required = (node.required ?? []) as string[];
      return Object.fromEntries(required.map((name) => [name, smallestOf(properties[name])]));
    }
    case 'array':
      return Array.from({ length: typeof node.minItems === 'number' ? node.minItems : 0 }, () => smallestOf(node.items));
    case 'string':
      return '';
    case 'number':
    case 'integer':
      return typeof node.minimum === 'number' ? node.minimum : 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

const ajv = new Ajv({ strict: false, allErrors: false });

/** The first reason a JSON text does not fit a schema, or null when it does. */
export function schemaProblem(content: string, schema: unknown): string | null {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch (error) {
    return `the scripted answer is not JSON (${(error as Error).message})`;
  }
  const validate = ajv.compile(schema as object);
  if (validate(value)) return null;
  const issue = validate.errors?.[0];
  return `the scripted answer does not fit the schema: ${issue?.instancePath || '(root)'} ${issue?.message ?? ''}`;
}

const looksLikeJson = (content: string): boolean => /^\s*[[{]/.test(content);

/**
 * `structuredOnly`: what the endpoint makes of a scripted turn. Under a JSON schema the turn's
 * JSON must fit it (a turn that does not is the test's mistake, reported as a failure); a tool
 * call must name an offered tool; a plain-text request answered with JSON gets that JSON cut
 * short after some chatter, as a model that only writes JSON under a schema would garble it.
 */
export function structuredOnlyTurn(turn: ScriptedTurn, chat: WireChatRequest): { failure: string } | { turn: ScriptedTurn } {
  const offered = new Set((chat.tools ?? []).map((tool) => tool.function.name));
  const stray = (turn.toolCalls ?? []).find((call) => !offered.has(call.name));
  if (stray) return { failure: `structuredOnly: the scripted tool call ${stray.name} was not offered (offered: ${[...offered].join(', ') || 'none'})` };
  const content = turn.content ?? turn.contentChunks?.join('');
  if (content === undefined || !looksLikeJson(content)) return { turn };
  const schema = chat.response_format?.type === 'json_schema' ? chat.response_format.json_schema?.schema : undefined;
  if (schema !== undefined) {
    const problem = schemaProblem(content, schema);
    return problem ? { failure: `structuredOnly (${chat.response_format?.json_schema?.name ?? 'schema'}): ${problem}` } : { turn };
  }
  const { contentChunks: _chunks, ...rest } = turn;
  return { turn: { ...rest, content: `Sure, here it is: ${content.slice(0, Math.floor(content.length / 2))}` } };
}
