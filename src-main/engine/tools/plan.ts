import { z } from 'zod';
import { chainPlan } from '../../contract/run';
import { numberedSteps } from '../text-protocol';
import { defineTool, numbered } from './tool';

export const planSteps = z.array(z.string().trim().min(1).max(500)).min(1).max(30);

/** `plan`: the analysis laid out as ordered steps before the first query (PlanRAG). */
export const planTool = defineTool({
  name: 'plan',
  arguments: z.object({ steps: planSteps }),
  description: () => 'Lay out the analysis as an ordered list of steps before querying. Each step says what to find out and why it matters for the decision.',
  textForm: 'Plan:\n1. <first step>\n2. <next step>',
  textSections: ['Plan'],
  fromText: (reply) => {
    const body = reply.section('plan');
    const steps = body === undefined ? [] : numberedSteps(body);
    return steps.length > 0 ? { steps } : undefined;
  },
  perform: async ({ steps }, { step }, tools) => {
    tools.emit({ type: 'plan', step, steps, nodes: chainPlan(steps) });
    return { reply: 'Plan recorded. Carry it out one query at a time.', stateChanges: { plan: steps, planned: true } };
  },
  cells: {
    plan: (event, _at, cells) => {
      cells.add(event.step, { kind: 'plan', author: 'model', source: numbered(event.steps), data: { steps: event.steps, ...(event.nodes ? { nodes: event.nodes } : {}) } });
    },
  },
});
