import { conversationTechnique } from '../conversation';

/** PlanRAG (NAACL 2024): a plan first; re-plan whenever an observation shows the plan no longer holds. */
export const planRag = conversationTechnique({
  id: 'planrag',
  label: 'PlanRAG',
  summary: 'A plan first; after every observation the model checks the plan and re-plans when it no longer holds.',
  method: [
    '# Method',
    '1. First make a plan: the ordered analysis steps needed to reach the decision, derived from the business rules.',
    '2. Then carry out the plan, one query per step, reading each observation.',
    '3. After every observation, check whether the plan still holds. If the data shows it is wrong or incomplete (a missing table, an unexpected value, a better route), re-plan before continuing.',
    '4. Answer when the evidence decides the question.',
  ].join('\n'),
  rules: { plansFirst: true, replans: true, queryLimit: null },
});
