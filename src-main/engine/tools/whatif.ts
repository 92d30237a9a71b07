import { z } from 'zod';
import { WorkbenchError } from '../../contract/errors';
import { WHATIF_DEFAULT_TIMEOUT_MS, WHATIF_DEFAULT_TOLERANCE, whatIfExperimentSchema, type WhatIfSpec } from '../../contract/whatif';
import { formatWhatIfForModel } from '../../whatif/format-for-model';
import { jsonAction } from '../text-protocol';
import { queryMaxLength } from './query';
import { defineTool } from './tool';

/** `whatif`: a parametrised change per candidate on a throwaway copy of the data (offered only where the data can be copied). */
export const whatIfTool = defineTool({
  name: 'whatif',
  arguments: whatIfExperimentSchema
    .pick({ direction: true })
    .extend({
      change: capped(whatIfExperimentSchema.shape.change),
      objective: capped(whatIfExperimentSchema.shape.objective),
      candidates: z.array(z.union([z.string().max(200), z.number().finite()])).min(1).max(500).optional().describe('The decisions to compare, bound in turn as :candidate.'),
      candidatesQuery: capped(z.string().trim().min(1)).optional().describe('Instead of candidates: a read-only query whose first column lists them.'),
    })
    .refine((args) => (args.candidates === undefined) !== (args.candidatesQuery === undefined), {
      message: 'give exactly one of candidates or candidatesQuery (one, not both and not neither)',
      path: ['candidates'],
    }),
  // The zod refine above, said in JSON schema too, so a constrained decoder can honour it.
  narrowSchema: async (schema) => ({ ...schema, oneOf: [{ required: ['candidates'] }, { required: ['candidatesQuery'] }] }),
  description: () =>
    'Run a what-if experiment on a throwaway copy of the database (the database itself never changes): for each candidate decision, apply one SQL change (INSERT, UPDATE or DELETE) that names the candidate as :candidate (in DuckDB: $candidate), measure the objective query before and after, and get the candidates ranked with the best, its margin and ties. Use it to compare the effect of decisions the data can express directly.',
  textForm:
    'Action: whatif\nAction Input:\n{"change": "UPDATE … WHERE id = :candidate", "objective": "SELECT <one number> …", "candidates": [1, 2], "direction": "maximize"}  (or "candidatesQuery": "SELECT id FROM …" instead of "candidates")',
  fromText: (reply) => jsonAction(reply, 'whatif'),
  perform: async (args, { step, node }, tools) => {
    const sandbox = tools.whatIf;
    if (!sandbox) return { reply: 'What-if experiments are not available on this database.' };
    const spec: WhatIfSpec = {
      change: args.change,
      objective: args.objective,
      direction: args.direction,
      tolerance: WHATIF_DEFAULT_TOLERANCE,
      timeoutMs: Math.min(WHATIF_DEFAULT_TIMEOUT_MS, tools.limits.queryTimeoutMs),
      ...(args.candidates ? { candidates: args.candidates } : { candidatesQuery: args.candidatesQuery ?? '' }),
    };
    const at = { step, ...(node ? { node } : {}) };
    try {
      const result = await sandbox.run(spec, tools.signal);
      tools.emit({ type: 'whatif', ...at, spec, result, error: null });
      return { reply: formatWhatIfForModel(result) };
    } catch (caught) {
      const error = WorkbenchError.from(caught);
      tools.emit({ type: 'whatif', ...at, spec, result: null, error: error.toJSON() });
      return { reply: `What-if failed (${error.code}): ${error.message}. Correct the change, the objective or the candidates and try again.`, failed: true };
    }
  },
  cells: {
    whatif: (event, at, cells) => {
      const cellId = cells.add(event.step, { kind: 'whatif', author: 'model', source: JSON.stringify(event.spec, null, 2), connectionId: cells.connectionId, node: event.node, data: {} });
      const connectionId = cells.connectionId ?? '';
      if (event.result) cells.saveOutput(cellId, { status: 'whatif', whatif: event.result, ranAt: at, connectionId });
      else if (event.error) cells.saveOutput(cellId, { status: 'error', error: event.error, ranAt: at, connectionId });
    },
  },
});

/** A SQL argument capped like a query, keeping what it tells the model. */
function capped(schema: z.ZodString): z.ZodString {
  return schema.max(queryMaxLength).describe(schema.description ?? '');
}
