import { conversationTechnique } from '../conversation';

/** PlanRAG without re-planning (the paper's ablation): a plan first, never revised. */
export const planRagNoReplan = conversationTechnique({
  id: 'planrag-norp',
  label: 'PlanRAG without re-planning',
  summary: 'A plan first, then queries along it; the plan is never revised.',
  method: [
    '# Method',
    '1. First make a plan: the ordered analysis steps needed to reach the decision, derived from the business rules.',
    '2. Then carry out the plan, one query per step, reading each observation, and answer when the evidence decides the question.',
  ].join('\n'),
  rules: { plansFirst: true, replans: false, queryLimit: null },
});
