import type { OutputConstraint } from '../../llm/types';
import { toolParameters } from '../tools/registry';
import type { ToolDefinition } from '../tools/tool';

/**
 * One structured reply a technique asks the model for: a JSON schema it sends as the reply's
 * format (`response_format` over HTTP, a grammar in-process), or a tool it offers. `schema` is
 * the JSON schema as a representative call sends it: a parametric one (a plan's node cap, a
 * ranking's batch size, the options' names) is built for an example, and a tool's parameters
 * are before any run-time narrowing. Exposed for tests and docs (`structuredRepliesOf`).
 */
export interface StructuredReply {
  kind: 'json' | 'tool';
  name: string;
  schema: Readonly<Record<string, unknown>>;
}

/** The reply a JSON output constraint asks for (a technique's reply-schemas.ts); a tool-call constraint is no JSON reply. */
export function jsonReply(constraint: OutputConstraint): StructuredReply {
  if (constraint.kind !== 'json') throw new Error('A tool-call constraint is declared by the tools offered, not as a JSON reply');
  return { kind: 'json', name: constraint.name, schema: constraint.schema };
}

/** The replies offering these tools asks for: a call of each, with its parameters. */
export function toolReplies(tools: readonly ToolDefinition[]): StructuredReply[] {
  return tools.map((tool) => ({ kind: 'tool', name: tool.name, schema: toolParameters(tool) }));
}

/** Each reply once by kind and name (a technique that reuses another's tools lists them once). */
export function distinctReplies(replies: readonly StructuredReply[]): StructuredReply[] {
  const seen = new Set<string>();
  return replies.filter((reply) => {
    const key = `${reply.kind}:${reply.name}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
