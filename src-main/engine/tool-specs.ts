import { z } from 'zod';
import { whatIfCandidateSchema, whatIfExperimentSchema } from '../contract/whatif';
import type { ToolSpec } from '../llm/types';
import type { ToolName } from './techniques';

/**
 * The public tool protocol (documented in docs/tool-protocol.md). Arguments are validated
 * with these schemas before they become a plan, a query or a decision.
 */
export const toolArguments = {
  plan: z.object({ steps: z.array(z.string().trim().min(1)).min(1).max(30) }),
  query: z.object({ query: z.string().trim().min(1) }),
  replan: z.object({ steps: z.array(z.string().trim().min(1)).min(1).max(30), reason: z.string().trim().min(1) }),
  answer: z.object({ decision: z.string().trim().min(1), rationale: z.string().trim().min(1) }),
  simulate: z.object({
    candidates: z.array(z.string().trim().min(1)).max(500).optional(),
    country: z.string().trim().min(1).optional(),
    home: z.string().trim().min(1).optional(),
    goods: z.string().trim().min(1).optional(),
  }),
  whatif: whatIfExperimentSchema
    .pick({ change: true, objective: true, direction: true })
    .extend({
      candidates: z.array(whatIfCandidateSchema).min(1).max(500).optional().describe('The decisions to compare, bound in turn as :candidate.'),
      candidatesQuery: z.string().trim().min(1).optional().describe('Instead of candidates: a read-only query whose first column lists them.'),
    })
    .refine((args) => (args.candidates === undefined) !== (args.candidatesQuery === undefined), {
      message: 'give either candidates or candidatesQuery, not both',
      path: ['candidates'],
    }),
} satisfies Record<ToolName, z.ZodType>;

export type ToolArguments<T extends ToolName> = z.infer<(typeof toolArguments)[T]>;

const descriptions: Record<ToolName, string> = {
  plan: 'Lay out the analysis as an ordered list of steps before querying. Each step says what to find out and why it matters for the decision.',
  query: 'Run one read-only query against the database and receive its rows (a compact table with the row count and whether it was truncated).',
  replan: 'Replace the current plan when an observation shows it no longer holds. Give the new steps and the reason.',
  answer: 'Give the final decision (just the chosen option, e.g. a name or an id) and the rationale citing the evidence.',
  whatif:
    'Run a what-if experiment on a throwaway copy of the database (the database itself never changes): for each candidate decision, apply one SQL change (INSERT, UPDATE or DELETE) that names the candidate as :candidate (in DuckDB: $candidate), measure the objective query before and after, and get the candidates ranked with the best, its margin and ties. Use it to compare the effect of decisions the data can express directly.',
  simulate:
    'Simulate the business rules exactly for candidate decisions and get each one\'s objective before and after, ranked, with the best, its margin and ties. Give the candidates to compare (all when omitted) and the scenario parameters: country and home node for trade-node (Locating) questions, goods for building (Building) questions.',
};

export function toolSpec(name: ToolName, dialectLabel: string): ToolSpec {
  const description = name === 'query' ? `${descriptions.query} Write it in ${dialectLabel}.` : descriptions[name];
  return { name, description, parameters: z.toJSONSchema(toolArguments[name]) as Record<string, unknown> };
}
