import type { RunContext, RunOutcome } from '../../run-context';
import { conversationTechnique } from '../conversation';
import type { TechniqueDefinition } from '../technique';
import { playbookSteps } from './playbook';

/**
 * AutoPlan at inference (Ouyang & Li 2023): the ReAct loop with the pinned playbook placed
 * between the task and the question, every thought naming the playbook step it follows,
 * greedy decoding and no reflection. The playbook opens the run as a plan cell; a run without
 * one is refused (../playbook-required.ts: it would be plain ReAct, tabled as AutoPlan). Actions go through the
 * workbench's tools rather than a separate formalizer call: the tool schema (or the text
 * protocol) already makes every action valid, and training (./training.ts) keeps the paper's
 * formalizer. [ext]
 */
const loop = conversationTechnique({
  id: 'autoplan',
  label: 'AutoPlan',
  summary: 'ReAct guided by a playbook learned from past questions of the same kind (dwb playbook train); greedy, no per-question planning call.',
  method: [
    '# Method',
    'Work step by step: think about the one next action, run a query, read the observation, and repeat until you can answer.',
    'When the task gives a playbook, follow it: begin every thought with the playbook step you are on ("Step N: …") and keep each action faithful to that step.',
  ].join('\n'),
  rules: { plansFirst: false, replans: false, queryLimit: null },
});

export const autoPlan: TechniqueDefinition = {
  ...loop,
  usesPlaybook: true,
  temperature: 0,
  // The paper augments the environment's feedback, so paper fidelity keeps the richer database feedback.
  paperSettings: { keeps: ['query-feedback'] },
  run: (run: RunContext): Promise<RunOutcome> => {
    const playbook = run.options.playbook?.trim();
    if (playbook && !run.options.resume) run.emit({ type: 'plan', step: 0, steps: playbookSteps(playbook) });
    return loop.run(run);
  },
};
