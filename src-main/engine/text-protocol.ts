import type { TextReply, ToolDefinition } from './tools/tool';

/**
 * The plain-text protocol for models without tool calling (documented in
 * docs/tool-protocol.md). The model writes labelled sections and stops after an action:
 *
 *     Plan:
 *     1. …
 *     Thought: …
 *     Action: query
 *     Action Input:
 *     SELECT …
 *
 * and later `Re-plan:` (with `Reason:` and numbered steps) or `Final Answer:` (with
 * `Rationale:`). The engine answers an action with `Observation:` and the rows. Each tool
 * gives its own reply form and reads its own call (./tools/); this file only splits sections.
 */
export interface TextStep {
  thought: string | null;
  calls: { name: string; arguments: unknown }[];
}

export function textProtocolInstructions(tools: readonly ToolDefinition[]): string {
  return [
    '# Reply format',
    'You cannot call functions. Reply in plain text using exactly one of these forms, then stop; an action is answered with "Observation:" and the rows.',
    ...tools.map((tool) => tool.textForm),
  ].join('\n\n');
}

const coreSections = ['Thought', 'Action Input', 'Action', 'Observation'];

/** Reads a reply in the plain-text protocol, in the order of `tools`; returns no calls when it follows none of the forms. */
export function parseTextReply(text: string, tools: readonly ToolDefinition[]): TextStep {
  const labels = [...new Set([...tools.flatMap((tool) => tool.textSections ?? []), ...coreSections])].sort((a, b) => b.length - a.length);
  const sections = splitSections(text, new RegExp(`^\\s*(${labels.map(escapeRegExp).join('|')})\\s*:\\s?`, 'im'));
  const section = (name: string): string | undefined => sections.find((candidate) => candidate.name === name)?.body;
  const actionName = section('action')?.trim().toLowerCase();
  const input = section('action input');
  const reply: TextReply = { section, action: actionName !== undefined && input !== undefined ? { name: actionName, input: stripFences(input) } : null };
  const calls: TextStep['calls'] = [];
  for (const tool of tools) {
    const args = tool.fromText(reply);
    if (args !== undefined) calls.push({ name: tool.name, arguments: args });
  }
  const thought = section('thought')?.trim() ?? null;
  return { thought: thought || null, calls };
}

function splitSections(text: string, sectionPattern: RegExp): { name: string; body: string }[] {
  const sections: { name: string; body: string }[] = [];
  let rest = text;
  let match = sectionPattern.exec(rest);
  while (match) {
    const name = (match[1] as string).toLowerCase();
    rest = rest.slice(match.index + match[0].length);
    const next = sectionPattern.exec(rest);
    const body = next ? rest.slice(0, next.index) : rest;
    // The model must stop after an action; anything it invents as an observation is ignored.
    if (name === 'observation') break;
    sections.push({ name, body: body.replace(/\s+$/, '') });
    match = next;
  }
  return sections;
}

/** The numbered or bulleted lines of a section (plan steps). */
export function numberedSteps(body: string): string[] {
  return body
    .split('\n')
    .map((line) => /^\s*(?:\d+[.)]|[-*•])\s+(.*\S)\s*$/.exec(line)?.[1])
    .filter((step): step is string => step !== undefined);
}

/** An `Action Input:` holding a JSON object; what is not one is passed on for the schema to refuse. */
export function parseJsonObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return { invalid: text };
  }
}

/** The arguments of an `Action: <name>` call whose input is JSON, or undefined when the reply makes no such call. */
export function jsonAction(reply: TextReply, name: string): Record<string, unknown> | undefined {
  return reply.action?.name.startsWith(name) ? parseJsonObject(reply.action.input) : undefined;
}

function stripFences(input: string): string {
  const fenced = /```[a-zA-Z]*\s*\n([\s\S]*?)```/.exec(input);
  return (fenced ? (fenced[1] as string) : input).trim();
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
