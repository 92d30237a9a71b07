import { answerTool } from './answer';
import { planTool } from './plan';
import { queryTool } from './query';
import { replanTool } from './replan';
import { simulateTool } from './simulate';
import { z } from 'zod';
import type { ToolSpec } from '../../llm/types';
import type { ToolDefinition } from './tool';
import { whatIfTool } from './whatif';

/**
 * Every tool a technique can offer, one line each (add a tool: its file in this folder and a
 * line here). The order is the order calls are read from a plain-text reply.
 */
const tools: ToolDefinition[] = [planTool, replanTool, queryTool, simulateTool, whatIfTool, answerTool];

export function registeredTools(): readonly ToolDefinition[] {
  return tools;
}

/** The tool of that name; throws for a name no tool has (a technique naming a tool that does not exist is a bug). */
export function toolNamed(name: string): ToolDefinition {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`No tool is registered as "${name}" (registered: ${tools.map((candidate) => candidate.name).join(', ')})`);
  return tool;
}

/** How a tool is offered to the model: its name, description and its arguments as a JSON schema. */
export function toolSpecFor(tool: ToolDefinition, dialectLabel: string): ToolSpec {
  return { name: tool.name, description: tool.description(dialectLabel), parameters: toolParameters(tool) };
}

/** The arguments' JSON schema as the model may write them: fields with a default are optional (the default is applied when read). */
export function toolParameters(tool: ToolDefinition): Record<string, unknown> {
  return z.toJSONSchema(tool.arguments, { io: 'input' }) as Record<string, unknown>;
}
