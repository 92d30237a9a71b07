import type { ToolName } from './techniques';

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
 * `Rationale:`). The engine answers an action with `Observation:` and the rows.
 */
export interface TextStep {
  thought: string | null;
  calls: { name: ToolName; arguments: Record<string, unknown> }[];
}

export function textProtocolInstructions(tools: ToolName[]): string {
  const forms: Record<ToolName, string> = {
    plan: 'Plan:\n1. <first step>\n2. <next step>',
    query: 'Thought: <what you need next and why>\nAction: query\nAction Input:\n<one query>',
    replan: 'Re-plan:\nReason: <why the plan no longer holds>\n1. <new first step>\n2. <next step>',
    answer: 'Final Answer: <the decision only>\nRationale: <the evidence>',
    whatif:
      'Action: whatif\nAction Input:\n{"change": "UPDATE … WHERE id = :candidate", "objective": "SELECT <one number> …", "candidates": [1, 2], "direction": "maximize"}  (or "candidatesQuery": "SELECT id FROM …" instead of "candidates")',
    simulate: 'Action: simulate\nAction Input:\n{"candidates": ["<option>", "<option>"], "country": "…", "home": "…"}  (or {"goods": "…"})',
  };
  return [
    '# Reply format',
    'You cannot call functions. Reply in plain text using exactly one of these forms, then stop; an action is answered with "Observation:" and the rows.',
    ...tools.map((tool) => forms[tool]),
  ].join('\n\n');
}

const sectionPattern = /^\s*(Plan|Thought|Action Input|Action|Re-plan|Replan|Reason|Final Answer|Rationale|Observation)\s*:\s?/im;

/** Reads a reply in the plain-text protocol; returns no calls when it follows none of the forms. */
export function parseTextReply(text: string): TextStep {
  const sections = splitSections(text);
  const get = (name: string): string | undefined => sections.find((section) => section.name === name)?.body;
  const calls: TextStep['calls'] = [];

  const plan = get('plan');
  if (plan !== undefined) {
    const steps = numberedSteps(plan);
    if (steps.length > 0) calls.push({ name: 'plan', arguments: { steps } });
  }
  const replan = get('re-plan') ?? get('replan');
  if (replan !== undefined) {
    const reason = get('reason') ?? replan.split('\n')[0] ?? '';
    calls.push({ name: 'replan', arguments: { steps: numberedSteps(replan), reason: reason.trim() } });
  }
  const action = get('action')?.trim().toLowerCase();
  const input = get('action input');
  if (action?.startsWith('query') && input !== undefined) calls.push({ name: 'query', arguments: { query: stripFences(input) } });
  if (action?.startsWith('simulate') && input !== undefined) calls.push({ name: 'simulate', arguments: parseJsonObject(stripFences(input)) });
  if (action?.startsWith('whatif') && input !== undefined) calls.push({ name: 'whatif', arguments: parseJsonObject(stripFences(input)) });
  const answer = get('final answer');
  if (answer !== undefined) {
    calls.push({ name: 'answer', arguments: { decision: answer.split('\n')[0]?.trim() ?? '', rationale: (get('rationale') ?? answer).trim() } });
  }
  const thought = get('thought')?.trim() ?? null;
  return { thought: thought || null, calls };
}

function splitSections(text: string): { name: string; body: string }[] {
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

function numberedSteps(body: string): string[] {
  return body
    .split('\n')
    .map((line) => /^\s*(?:\d+[.)]|[-*•])\s+(.*\S)\s*$/.exec(line)?.[1])
    .filter((step): step is string => step !== undefined);
}

function parseJsonObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return { invalid: text };
  }
}

function stripFences(input: string): string {
  const fenced = /```[a-zA-Z]*\s*\n([\s\S]*?)```/.exec(input);
  return (fenced ? (fenced[1] as string) : input).trim();
}
