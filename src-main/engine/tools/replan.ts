import { z } from 'zod';
import { chainPlan } from '../../contract/run';
import { analystNote, recordReview } from '../review-gate';
import { numberedSteps } from '../text-protocol';
import { planSteps } from './plan';
import { defineTool, numbered } from './tool';

/** `replan`: the plan replaced when an observation shows it no longer holds; a review point in step-through. */
export const replanTool = defineTool({
  name: 'replan',
  arguments: z.object({ steps: planSteps, reason: z.string().trim().min(1).max(1000) }),
  description: () => 'Replace the current plan when an observation shows it no longer holds. Give the new steps and the reason.',
  textForm: 'Re-plan:\nReason: <why the plan no longer holds>\n1. <new first step>\n2. <next step>',
  textSections: ['Re-plan', 'Replan', 'Reason'],
  reviews: { subject: 'replan', what: 'each re-plan' },
  fromText: (reply) => {
    const body = reply.section('re-plan') ?? reply.section('replan');
    if (body === undefined) return undefined;
    // In the documented form the numbered steps follow the `Reason:` line, inside its section.
    const reasonSection = reply.section('reason');
    const steps = numberedSteps(body).length > 0 ? numberedSteps(body) : numberedSteps(reasonSection ?? '');
    const reason = reasonSection === undefined ? (body.split('\n')[0] ?? '') : (reasonSection.split('\n').filter((line) => numberedSteps(line).length === 0).join(' '));
    return { steps, reason: reason.trim() };
  },
  perform: async (proposed, { step, node }, tools) => {
    const { gate } = tools;
    const asked = gate.interactive; // read before: the analyst may resume (switch to auto) with this answer
    const decision = await gate.review({ subject: 'replan', step, ...(node ? { node } : {}), steps: proposed.steps, reason: proposed.reason }, tools.signal);
    if (asked) recordReview(tools, { step, node }, 'replan', proposed.steps.join('\n'), decision);
    if (decision.action === 'stop') return { stop: 'The analyst stopped the run to continue by hand' };
    if (decision.action === 'skip') return { reply: `The analyst kept the current plan${decision.note ? `: ${decision.note}` : ''}. Continue with it.` };
    const steps = decision.action === 'edit' && decision.steps?.length ? decision.steps : proposed.steps;
    tools.emit({ type: 'replan', step, previous: [...tools.known.plan], steps, nodes: chainPlan(steps), reason: proposed.reason, author: decision.action === 'edit' ? 'analyst' : 'model' });
    const note = analystNote(decision);
    return {
      reply: `Plan updated${decision.action === 'edit' ? ' by the analyst' : ''}: ${steps.map((text, index) => `${index + 1}. ${text}`).join(' ')}.${note ? ` Analyst note: ${note}` : ''}`,
      stateChanges: { plan: steps },
    };
  },
  cells: {
    replan: (event, _at, cells) => {
      cells.add(event.step, {
        kind: 'replan',
        author: event.author,
        source: `${numbered(event.steps)}\n\n**Why:** ${event.reason}`,
        data: { previous: event.previous, steps: event.steps, reason: event.reason },
      });
    },
  },
});
