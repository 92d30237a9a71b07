/**
 * The decision makers the workbench compares (PlanRAG, NAACL 2024, and its baselines). They
 * share one loop (./decision-run.ts) and differ only in the tools they are offered and when.
 */
export const techniqueIds = ['singlerag', 'iterrag', 'planrag', 'planrag-norp'] as const;
export type TechniqueId = (typeof techniqueIds)[number];

export type ToolName = 'plan' | 'query' | 'replan' | 'simulate' | 'whatif' | 'answer';

export interface Technique {
  id: TechniqueId;
  label: string;
  /** The model must lay out a plan before its first query. */
  plansFirst: boolean;
  /** The model may revise its plan after an observation. */
  replans: boolean;
  /** Queries allowed before only `answer` remains; null for no limit beyond the step limit. */
  queryLimit: number | null;
  summary: string;
}

export const techniques: Record<TechniqueId, Technique> = {
  singlerag: {
    id: 'singlerag',
    label: 'SingleRAG',
    plansFirst: false,
    replans: false,
    queryLimit: 1,
    summary: 'One retrieval query, then an answer.',
  },
  iterrag: {
    id: 'iterrag',
    label: 'IterRAG (ReAct)',
    plansFirst: false,
    replans: false,
    queryLimit: null,
    summary: 'Thought, query, observation, repeated until the model answers.',
  },
  planrag: {
    id: 'planrag',
    label: 'PlanRAG',
    plansFirst: true,
    replans: true,
    queryLimit: null,
    summary: 'A plan first; after every observation the model checks the plan and re-plans when it no longer holds.',
  },
  'planrag-norp': {
    id: 'planrag-norp',
    label: 'PlanRAG without re-planning',
    plansFirst: true,
    replans: false,
    queryLimit: null,
    summary: 'A plan first, then queries along it; the plan is never revised.',
  },
};

/**
 * Tools on offer at a given point of a run; `simulate` only where a simulator fits the data,
 * `whatif` only where the data can be copied into a sandbox. Both are experiments rather than
 * retrieval, so they stay available when a technique's query budget is spent.
 */
export function toolsOffered(technique: Technique, state: { planned: boolean; queries: number; canSimulate?: boolean; canWhatIf?: boolean }): ToolName[] {
  if (technique.plansFirst && !state.planned) return ['plan'];
  const queriesLeft = technique.queryLimit === null || state.queries < technique.queryLimit;
  return [
    ...(queriesLeft ? (['query'] as const) : []),
    ...(technique.replans ? (['replan'] as const) : []),
    ...(state.canSimulate ? (['simulate'] as const) : []),
    ...(state.canWhatIf ? (['whatif'] as const) : []),
    'answer',
  ];
}
