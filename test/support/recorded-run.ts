import type { ScriptStep } from './scripted-openai/script';

/** The question of the recorded run in `fixtures/runs/planrag-locating` (scripts/record-run-fixture.ts). */
export const recordedRunQuestion = 'Where should SWE place its merchant to maximise profit at baltic_sea?';

/** What the scripted model answered in that run: plan, two queries, a re-plan, a query, the decision. */
export const recordedRunScript: ScriptStep[] = [
  { toolCalls: [{ name: 'plan', arguments: { steps: ['Home node values', 'Upstream nodes'] } }] },
  { toolCalls: [{ name: 'query', arguments: { query: "SELECT local_value, ingoing FROM trade_node WHERE trade_node = 'baltic_sea'" } }] },
  { expectToolResultContains: '5.665', toolCalls: [{ name: 'query', arguments: { query: "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source" } }] },
  { expectToolResultContains: 'krakow', toolCalls: [{ name: 'replan', arguments: { steps: ['SWE power in krakow', 'Decide'], reason: 'krakow feeds the home node' } }] },
  { toolCalls: [{ name: 'query', arguments: { query: "SELECT base_trading_power FROM node_country WHERE trade_node = 'krakow' AND country_name = 'SWE'" } }] },
  { expectToolResultContains: 'rows: 1', toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'SWE steers value from krakow.' } }] },
];
