import { conversationTechnique } from '../conversation';

/** SingleRAG (PlanRAG paper's baseline): one retrieval query, then an answer. */
export const singleRag = conversationTechnique({
  id: 'singlerag',
  label: 'SingleRAG',
  summary: 'One retrieval query, then an answer.',
  method: '# Method\nRetrieve what you need with ONE query (make it count: join and aggregate as needed), then answer.',
  rules: { plansFirst: false, replans: false, queryLimit: 1 },
});
