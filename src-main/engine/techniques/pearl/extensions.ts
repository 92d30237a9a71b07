import type { RunExtension } from '../../../contract/fidelity';

/** Pearl's product extensions: each is what the workbench does where the paper did less (SPECS §2). */
export const pearlExtensions = {
  queryRetry: {
    id: 'pearl-query-retry',
    label: 'Pearl: a failed step query may be written again',
    adds: 'A database step whose query failed may write one more query before its output.',
    paperInstead: 'One query per database step (the paper runs each step once).',
    paper: false,
    product: true,
  },
  parallelSteps: {
    id: 'pearl-parallel-steps',
    label: 'Pearl: independent steps at once',
    adds: 'Steps whose inputs are ready run at once, up to 3.',
    paperInstead: 'Steps run one after another in plan order.',
    paper: false,
    product: true,
  },
  planRagFallback: {
    id: 'pearl-planrag-fallback',
    label: 'Pearl: PlanRAG answers when no program parses',
    adds: 'After 8 refused programs PlanRAG answers the question on the same run.',
    paperInstead: 'A zero-shot answer: the question, the rules and the schema, no queries.',
    paper: false,
    product: true,
  },
} as const satisfies Record<string, RunExtension>;
