import type { TechniqueDefinition } from '../../src-main/engine/techniques/technique';
import type { StructuredReply } from '../../src-main/engine/techniques/structured-replies';
import type { ReceivedChatRequest } from './scripted-openai';

/**
 * A JSON schema's shape: types, property names and which are required, items and alternatives;
 * not the parts a run fills in (enums of the options' names, a ranking's size, a node cap,
 * descriptions), so a declared example matches every call built from the same schema.
 */
export function schemaShape(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return null;
  const node = schema as Record<string, unknown>;
  if (Array.isArray(node['anyOf'])) return { anyOf: node['anyOf'].map(schemaShape) };
  const properties = node['properties'] as Record<string, unknown> | undefined;
  return {
    type: node['type'] ?? null,
    ...(properties ? { properties: Object.fromEntries(Object.keys(properties).sort().map((key) => [key, schemaShape(properties[key])])) } : {}),
    ...(Array.isArray(node['required']) ? { required: [...(node['required'] as string[])].sort() } : {}),
    ...(node['items'] !== undefined ? { items: schemaShape(node['items']) } : {}),
  };
}

const fits = (declared: readonly StructuredReply[], kind: StructuredReply['kind'], name: string, schema: unknown): boolean =>
  declared.some((reply) => reply.kind === kind && reply.name === name && JSON.stringify(schemaShape(reply.schema)) === JSON.stringify(schemaShape(schema)));

/**
 * What the requests asked for that the technique's definition does not declare: each
 * `response_format` JSON schema and each offered tool, by name and shape. Empty: every
 * structured request is one the definition lists. `structured` counts the requests that asked
 * for a schema or offered a tool, so a test can tell that some did.
 */
export function undeclaredReplies(definition: TechniqueDefinition, requests: readonly ReceivedChatRequest[]): { undeclared: string[]; structured: number } {
  const undeclared = new Set<string>();
  let structured = 0;
  for (const request of requests) {
    const format = request.chat.response_format?.json_schema;
    const tools = request.chat.tools ?? [];
    if (format || tools.length > 0) structured += 1;
    if (format && !fits(definition.structuredReplies, 'json', format.name ?? '', format.schema)) undeclared.add(`json ${format.name ?? '(unnamed)'}`);
    for (const tool of tools) if (!fits(definition.structuredReplies, 'tool', tool.function.name, tool.function.parameters)) undeclared.add(`tool ${tool.function.name}`);
  }
  return { undeclared: [...undeclared], structured };
}
