import { z } from 'zod';
import { decidedByText, type DecisionOrigin } from '../../contract/produced-by';
import { defineTool } from './tool';
import { candidateIds, checkDecision } from './simulate';

/** An echoed template placeholder such as `<the decision only>`: the model copied the form instead of filling it. */
const placeholder = /^<[^>]*>$/;

const answerArguments = z.object({
  decision: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .refine((decision) => !placeholder.test(decision), { message: 'is a placeholder copied from the reply form; give the chosen option itself' }),
  rationale: z
    .string()
    .trim()
    .min(1)
    .max(4000)
    .refine((rationale) => !placeholder.test(rationale), { message: 'is a placeholder copied from the reply form; give the evidence' }),
});

/** How many candidates a "not a candidate" reply lists (a long list would flood a small model's context). */
const candidatesShown = 40;

/** `answer`: the final decision and its rationale; checked by the simulator when one fits. Ends the run. */
export const answerTool = defineTool({
  name: 'answer',
  arguments: answerArguments,
  description: () => 'Give the final decision (just the chosen option, e.g. a name or an id) and the rationale citing the evidence.',
  textForm: 'Final Answer: <the decision only>\nRationale: <the evidence>',
  textSections: ['Final Answer', 'Rationale'],
  fromText: (reply) => {
    const answer = reply.section('final answer');
    if (answer === undefined) return undefined;
    return { decision: answer.split('\n')[0]?.trim() ?? '', rationale: (reply.section('rationale') ?? answer).trim() };
  },
  final: true,
  check: async ({ decision }, tools) => {
    const candidates = await candidateIds(tools);
    if (!candidates || candidates.length === 0) return null;
    const normal = normalizeDecision(decision);
    if (candidates.some((candidate) => normalizeDecision(candidate) === normal)) return null;
    const listed = candidates.slice(0, candidatesShown).join(', ');
    const more = candidates.length > candidatesShown ? `, … ${candidates.length - candidatesShown} more` : '';
    return `"${decision}" is not one of the candidates; the decision must be exactly one of: ${listed}${more}`;
  },
  narrowSchema: async (schema, tools) => {
    const candidates = await candidateIds(tools);
    const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
    if (!candidates || candidates.length === 0 || !properties?.decision) return schema;
    return { ...schema, properties: { ...properties, decision: { ...properties.decision, enum: candidates } } };
  },
  perform: async (answer, { step }, tools) => {
    const check = await checkDecision(tools, step, answer.decision);
    tools.emit({
      type: 'decision',
      step,
      decision: answer.decision,
      rationale: answer.rationale,
      evidence: [...tools.known.evidence],
      ...check,
    });
    return { answer };
  },
  cells: {
    decision: (event, _at, cells) => {
      cells.add(event.step, {
        kind: 'decision',
        // A decision computed in code (e.g. DeLLMa's expected utility) is the engine's, not the model's.
        author: event.computedBy ? 'engine' : 'model',
        source: `**Decision${event.computedBy ? ` (computed: ${event.computedBy})` : ''}:** ${event.decision}\n\n${notableOrigin(event.origin)}${event.rationale}`,
        data: {
          decision: event.decision,
          rationale: event.rationale,
          evidence: event.evidence.map((queryId) => cells.queryCells.get(queryId) ?? queryId),
          verification: event.verification ?? null,
          ...(event.unchecked ? { unchecked: event.unchecked } : {}),
          ...(event.origin ? { origin: event.origin } : {}),
        },
      });
    },
  },
});

/** A line for the cell's text when the decision was not the started technique's own or was copied from a tool; empty otherwise. */
function notableOrigin(origin: DecisionOrigin | undefined): string {
  return origin && (origin.fallback || origin.toolAssisted) ? `*Decided by ${decidedByText(origin)}*\n\n` : '';
}

/** As the simulator's check compares decisions: trimmed, outer quotes and a final period dropped, case-insensitive. */
function normalizeDecision(text: string): string {
  return text.trim().replace(/^["'`]|["'`.]$/g, '').toLowerCase();
}
