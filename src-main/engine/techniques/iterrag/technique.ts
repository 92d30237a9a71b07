import { conversationTechnique } from '../conversation';

/** IterRAG (ReAct): thought, query, observation, repeated until the model answers. */
export const iterRag = conversationTechnique({
  id: 'iterrag',
  label: 'IterRAG (ReAct)',
  summary: 'Thought, query, observation, repeated until the model answers.',
  method: '# Method\nWork step by step: think about what you need next, run a query, read the observation, and repeat until you can answer.',
  rules: { plansFirst: false, replans: false, queryLimit: null },
});
