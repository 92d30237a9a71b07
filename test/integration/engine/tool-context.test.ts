import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src-main/contract/run';
import { openSqliteConnector } from '../../../src-main/connectors/sqlite/sqlite-connector';
import { defaultRunLimits } from '../../../src-main/engine/decision-run';
import { automaticGate } from '../../../src-main/engine/review-gate';
import { RunContext } from '../../../src-main/engine/run-context';
import { techniqueNamed } from '../../../src-main/engine/techniques/registry';
import { answerTool } from '../../../src-main/engine/tools/answer';
import { planTool } from '../../../src-main/engine/tools/plan';
import { queryTool } from '../../../src-main/engine/tools/query';
import { candidateIds, simulateTool } from '../../../src-main/engine/tools/simulate';
import { createOpenAiProvider } from '../../../src-main/llm/openai-provider';
import { simulatorFor } from '../../../src-main/simulators/run-simulator';
import { useCleanups, useSqliteFromDqaDump } from '../../support/lifecycle';

/**
 * Tools see the run through a narrow ToolContext and return what they change; the executor
 * applies it. Performed directly here (no model), against a real DQA database and simulator.
 */
const locatingPath = useSqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql');
const onCleanup = useCleanups();

async function runOnLocating(): Promise<{ run: RunContext; events: RunEvent[] }> {
  const connector = openSqliteConnector({ path: locatingPath() });
  onCleanup(() => connector.close());
  const events: RunEvent[] = [];
  const simulator = await simulatorFor(connector, { rules: 'compat', known: { country: 'SWE', home: 'baltic_sea' } });
  const run = new RunContext(
    {
      question: 'Where should SWE place its merchant?',
      rules: '',
      technique: 'planrag',
      connector,
      connectionDescription: 'locating (SQLite)',
      // Never called: the tools are performed directly.
      provider: createOpenAiProvider({ baseUrl: 'http://127.0.0.1:9/v1', model: 'unused', requestTimeoutMs: 1000, maxRetries: 0, toolMode: 'tools' }),
      toolMode: 'tools',
      limits: defaultRunLimits,
      gate: automaticGate,
      emit: (event) => events.push(event),
      ...(simulator ? { simulator } : {}),
    },
    techniqueNamed('planrag'),
  );
  return { run, events };
}

describe('tools through a ToolContext', () => {
  it('return their state changes without touching the run; the executor applies them', async () => {
    const { run, events } = await runOnLocating();
    const tools = run.toolContext();
    const untouched = structuredClone(run.state);

    const planned = await planTool.perform({ steps: ['Find the feeders of baltic_sea'] }, { step: 1 }, tools);
    const queried = await queryTool.perform({ query: "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source" }, { step: 2 }, tools);
    const simulated = await simulateTool.perform({}, { step: 3 }, tools);
    // Nothing the tools did reached the run's state by itself; only the executor's id counter moved, handing out q1.
    expect({ ...run.state, queryCount: untouched.queryCount }).toEqual(untouched);
    expect(run.state.queryCount).toBe(1);
    expect(planned).toMatchObject({ stateChanges: { plan: ['Find the feeders of baltic_sea'], planned: true } });
    expect(queried).toMatchObject({ stateChanges: { evidence: ['q1'], queries: 1 } });
    expect(simulated).toMatchObject({ stateChanges: { lastSimulation: { spec: { scenario: 'locating', country: 'SWE', home: 'baltic_sea' } } } });
    expect(events.map((event) => event.type)).toEqual(['plan', 'query-start', 'query-end', 'observation', 'simulation']);

    for (const outcome of [planned, queried, simulated]) if ('reply' in outcome) run.applyStateChanges(outcome.stateChanges);
    expect(run.state).toMatchObject({ plan: ['Find the feeders of baltic_sea'], planned: true, queries: 1, evidence: ['q1'] });
    expect(run.state.lastSimulation?.candidates.length).toBeGreaterThan(0);
    // The context's view is live: the answer cites the evidence and is checked against the simulation just applied.
    expect(tools.known.evidence).toEqual(['q1']);
    const best = run.state.lastSimulation?.candidates.find((row) => row.rank === 1)?.candidate ?? '';
    await answerTool.perform({ decision: best, rationale: 'the simulation ranks it first' }, { step: 4 }, tools);
    expect(events.at(-1)).toMatchObject({ type: 'decision', decision: best, evidence: ['q1'], verification: { agrees: true } });
  });

  it('builds every context through one constructor: a step\'s own context notes its query ids and shares the run\'s memo', async () => {
    const { run } = await runOnLocating();
    const own = new Set<string>();
    const stepTools = run.toolContext({ onQueryId: (queryId) => own.add(queryId) });
    expect(stepTools).not.toBe(run.toolContext());
    expect(run.toolContext()).toBe(run.toolContext());
    await queryTool.perform({ query: 'SELECT 1' }, { step: 1, node: 'out1' }, stepTools);
    await queryTool.perform({ query: 'SELECT 2' }, { step: 2 }, run.toolContext());
    expect([...own]).toEqual(['q1']);
    // The simulator's candidates for the known parameters are asked once per run, whichever context asks.
    const [fromStep, fromRun] = [candidateIds(stepTools), candidateIds(run.toolContext())];
    expect(await fromStep).toEqual(await fromRun);
    expect(stepTools.memo).toBe(run.toolContext().memo);
    expect(stepTools.memo.knownCandidates).toBeDefined();
  });
});
