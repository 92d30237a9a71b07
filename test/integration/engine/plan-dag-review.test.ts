import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openConnector } from '../../../src-main/connectors/open-connector';
import type { RunEvent } from '../../../src-main/contract/run';
import { defaultRunLimits, runDecision } from '../../../src-main/engine/decision-run';
import type { ReviewDecision, ReviewGate, ReviewRequest } from '../../../src-main/engine/review-gate';
import { rerunSeed } from '../../../src-main/engine/techniques/plan-dag/rerun';
import { createOpenAiProvider } from '../../../src-main/llm/openai-provider';
import { parseProviderSettings } from '../../../src-main/llm/settings';
import { bundleFromRun } from '../../../src-main/reports/prepare-bundle';
import { buildReport } from '../../../src-main/reports/report-model';
import { renderHtmlReport } from '../../../src-main/reports/render-html';
import { renderMarkdownReport } from '../../../src-main/reports/render-markdown';
import { simulatorFor } from '../../../src-main/simulators/run-simulator';
import { sampleMaterials } from '../../unit/reports/bundle-fixture';
import { sqliteFromDqaDump } from '../../support/fixtures';
import { nodeOf, nodeTurn, plannerTurn, promptOf, queryTurn } from '../../support/plan-dag-script';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer, type ScriptStep } from '../../support/scripted-openai';
import { useSuiteTempDir } from '../../support/temp';

/**
 * Step-through review of a Plan*RAG plan [ext]: the analyst edits the plan graph before it
 * runs (refused edits come back with the reason and the analyst's text), and pins answers.
 */
const suiteDir = useSuiteTempDir();
let locating = '';
beforeAll(() => {
  locating = sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', suiteDir());
});
const servers: ScriptedOpenAiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const question = 'Assume that you are the ruler of the country named "SWE". Our home node is "baltic_sea". Where should I allocate my merchant to steer trade to "baltic_sea"?';

const rootsAndJoin = {
  nodes: [
    { id: 'Q1.1', question: 'Which trade nodes have a flow into baltic_sea?', parents: [] },
    { id: 'Q1.2', question: "What is SWE's base trading power at each trade node?", parents: [] },
    { id: 'Q2.1', question: 'Of the nodes in <A1.1>, where should SWE place its merchant, given its power A1.2?', parents: ['Q1.1', 'Q1.2'], compute: true },
  ],
  final: 'Q2.1',
};

type Answer = (request: ReviewRequest, index: number) => ReviewDecision;

async function reviewedRun(script: ScriptStep[], answer: Answer) {
  const server = await startScriptedOpenAiServer(script);
  servers.push(server);
  const connector = await openConnector({ engine: 'sqlite', path: locating }, null);
  const requests: ReviewRequest[] = [];
  const gate: ReviewGate = {
    interactive: true,
    review: async (request) => {
      requests.push(request);
      return answer(request, requests.length - 1);
    },
  };
  const events: RunEvent[] = [];
  const simulator = await simulatorFor(connector, { rules: 'compat', known: { country: 'SWE', home: 'baltic_sea' } });
  try {
    const outcome = await runDecision({
      question,
      rules: 'profit = (local_value + ingoing) * country_power / total_power',
      technique: 'plan-dag',
      connector,
      connectionDescription: 'DQA',
      toolMode: 'tools',
      limits: defaultRunLimits,
      gate,
      ...(simulator ? { simulator } : {}),
      emit: (event) => events.push(event),
      provider: createOpenAiProvider(parseProviderSettings({ baseUrl: server.baseUrl, model: 'scripted', toolMode: 'tools' })),
    });
    server.verify();
    return { outcome, events, requests, server };
  } finally {
    await connector.close();
  }
}

const planRequests = (requests: ReviewRequest[]) => requests.flatMap((request) => (request.subject === 'plan' ? [request] : []));
const toolInputs = (events: RunEvent[], tool: string) => events.flatMap((event) => (event.type === 'tool' && event.tool === tool ? [{ node: event.node, input: event.input as Record<string, unknown> }] : []));

describe('Plan*RAG step-through: the analyst reviews the plan graph', () => {
  it('refuses an invalid edit with the validator\'s reason and the analyst\'s text, then runs the edited question and the pinned answer', async () => {
    const cyclic = JSON.stringify({ ...rootsAndJoin, nodes: [{ ...rootsAndJoin.nodes[0], parents: ['Q2.1'] }, ...rootsAndJoin.nodes.slice(1)] });
    const edited = JSON.stringify({
      nodes: [
        { id: 'Q1.1', question: 'Which trade nodes send trade into baltic_sea (EDITED)?', parents: [] },
        { ...rootsAndJoin.nodes[1], pinned: 'krakow 7.98, novgorod 11.795' },
        rootsAndJoin.nodes[2],
      ],
      final: 'Q2.1',
    });
    const { outcome, events, requests, server } = await reviewedRun(
      [
        plannerTurn(rootsAndJoin),
        queryTurn('Q1.1', "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source", {
          expect: (request) => (promptOf(request).includes('send trade into baltic_sea (EDITED)') ? undefined : 'Q1.1 is asked the analyst\'s question'),
        }),
        nodeTurn('Q1.1', 'answer', { answer: ['krakow', 'novgorod'] }),
        nodeTurn('Q2.1', 'decide', { decision: 'krakow', rationale: 'r' }, {
          expect: (request) => (promptOf(request).includes('given its power krakow 7.98, novgorod 11.795?') ? undefined : 'the join reads the pinned answer'),
        }),
      ],
      (request, index) => (request.subject !== 'plan' ? { action: 'approve' } : index === 0 ? { action: 'edit', plan: cyclic } : { action: 'edit', plan: edited }),
    );
    expect(outcome).toMatchObject({ status: 'answered', decision: 'krakow' });

    // The plan was shown as JSON first; the refused edit came back with its reason and the analyst's own text.
    const plans = planRequests(requests);
    expect(plans).toHaveLength(2);
    expect(JSON.parse(plans[0]?.plan ?? '')).toMatchObject({ final: 'Q2.1', nodes: [{ id: 'Q1.1' }, { id: 'Q1.2' }, { id: 'Q2.1', compute: true }] });
    expect(plans[0]?.problem).toBeNull();
    expect(plans[1]?.problem).toBe('the plan has a cycle: Q1.1 → Q2.1 → Q1.1');
    expect(plans[1]?.plan).toBe(cyclic);

    // The pinned node made no call; its outcome is labelled; the approved plan is an analyst event and the run's last plan.
    expect(server.chatRequests().map(nodeOf)).toEqual([null, 'Q1.1', 'Q1.1', 'Q2.1']);
    expect(toolInputs(events, 'plan-dag.node').find((event) => event.node === 'Q1.2')?.input).toMatchObject({ status: 'answered', pinned: true, answer: 'krakow 7.98, novgorod 11.795', calls: [] });
    const review = events.find((event) => event.type === 'analyst-review' && event.subject === 'plan');
    expect(review).toMatchObject({ action: 'edit', original: JSON.stringify(rootsAndJoin, null, 2) });
    expect(JSON.parse((review as { edited: string }).edited)).toMatchObject({ nodes: [{ question: 'Which trade nodes send trade into baltic_sea (EDITED)?' }, { pinned: 'krakow 7.98, novgorod 11.795' }, {}] });
    expect(events.filter((event) => event.type === 'replan')).toMatchObject([{ author: 'analyst', nodes: [{ id: 'Q1.1', text: 'Which trade nodes send trade into baltic_sea (EDITED)?' }, { id: 'Q1.2' }, { id: 'Q2.1', dependsOn: ['Q1.1', 'Q1.2'] }] }]);
    expect(toolInputs(events, 'plan-dag.plan').map((event) => event.input['author'])).toEqual(['model', 'analyst']);
    expect(events.find((event) => event.type === 'decision')).toMatchObject({ decision: 'krakow', verification: { agrees: true } });

    // The report draws the plan that ran, says the analyst edited it, and labels the pinned node.
    const report = buildReport(bundleFromRun(sampleMaterials(events), { at: '2026-01-02T10:00:00.000Z', signOff: null, generator: 'Decision Workbench test', signer: null }));
    expect(report.planGraph?.layout.nodes.map((node) => [node.id, node.outcome?.pinned ?? false])).toEqual([['Q1.1', false], ['Q1.2', true], ['Q2.1', false]]);
    const html = renderHtmlReport(report);
    expect(html).toContain('Analyst edited the plan graph');
    // The edit as a diff of the plan JSON: the analyst's edited question on an added line.
    expect(html).toContain("The model's version (−) and the analyst's (+):");
    expect(html).toMatch(/<span class="added">\+ [^<]*baltic_sea \(EDITED\)\?/);
    expect(html).toContain('<td>pinned by the analyst</td>');
    expect(html).toContain('Which trade nodes send trade into baltic_sea (EDITED)?');
    const markdown = renderMarkdownReport(report);
    expect(markdown).toContain('**Analyst edited the plan graph.**');
    expect(markdown).toContain('- **Q1.2** (level 0, pinned by the analyst)');
  });

  it('records an approval unchanged, and a pinned final node decides without a model call, still checked by the simulator', async () => {
    const pinnedFinal = JSON.stringify({ nodes: [{ id: 'Q1.1', question: 'Where should SWE place its merchant?', pinned: 'krakow' }], final: 'Q1.1' });
    const approved = await reviewedRun([plannerTurn(rootsAndJoin), queryTurn('Q1.1', "SELECT source FROM flow WHERE dest = 'baltic_sea'"), queryTurn('Q1.2', "SELECT base_trading_power FROM node_country WHERE country_name = 'SWE'"), nodeTurn('Q1.1', 'answer', { answer: ['krakow', 'novgorod'] }), nodeTurn('Q1.2', 'answer', { answer: 7.98 }), nodeTurn('Q2.1', 'decide', { decision: 'krakow', rationale: 'r' })], () => ({ action: 'approve' }));
    expect(approved.outcome.status).toBe('answered');
    expect(approved.events.filter((event) => event.type === 'analyst-review' && event.subject === 'plan')).toMatchObject([{ action: 'approve', edited: null }]);
    expect(approved.events.some((event) => event.type === 'replan')).toBe(false);

    const pinned = await reviewedRun([plannerTurn(rootsAndJoin)], (request) => (request.subject === 'plan' ? { action: 'edit', plan: pinnedFinal } : { action: 'approve' }));
    expect(pinned.outcome).toMatchObject({ status: 'answered', decision: 'krakow' });
    expect(pinned.server.chatRequests()).toHaveLength(1);
    expect(pinned.events.find((event) => event.type === 'decision')).toMatchObject({ decision: 'krakow', verification: { agrees: true } });
  });

  it('ends cleanly when stopped before there is a plan: the summary has no graph, and no node can be re-run from it', async () => {
    const stop = new AbortController();
    const server = await startScriptedOpenAiServer([
      () => {
        stop.abort();
        return { holdUntil: new Promise(() => undefined) };
      },
    ]);
    servers.push(server);
    const connector = await openConnector({ engine: 'sqlite', path: locating }, null);
    const events: RunEvent[] = [];
    try {
      const outcome = await runDecision({
        question,
        rules: '',
        technique: 'plan-dag',
        connector,
        connectionDescription: 'DQA',
        toolMode: 'tools',
        limits: defaultRunLimits,
        gate: { interactive: true, review: async () => ({ action: 'approve' }) },
        signal: stop.signal,
        emit: (event) => events.push(event),
        provider: createOpenAiProvider(parseProviderSettings({ baseUrl: server.baseUrl, model: 'scripted', toolMode: 'tools', maxRetries: 0 })),
      });
      expect(outcome.status).toBe('cancelled');
    } finally {
      await connector.close();
    }
    expect(toolInputs(events, 'plan-dag.summary').map((event) => event.input['graph'])).toEqual([null]);
    expect(() => rerunSeed(events, { fromRun: 'run-x', node: 'Q1.1' })).toThrow('Run run-x is not a finished Plan*RAG run with a plan graph');
  });

  it('ends the run when the analyst stops at the plan', async () => {
    const { outcome, events, server } = await reviewedRun([plannerTurn(rootsAndJoin)], () => ({ action: 'stop' }));
    expect(outcome.status).toBe('stopped');
    expect(server.chatRequests()).toHaveLength(1);
    expect(events.filter((event) => event.type === 'analyst-review')).toMatchObject([{ subject: 'plan', action: 'stop' }]);
  });
});

describe('Plan*RAG node re-run [ext]', () => {
  async function automaticRun(script: ScriptStep[], seed?: unknown) {
    const server = await startScriptedOpenAiServer(script);
    servers.push(server);
    const connector = await openConnector({ engine: 'sqlite', path: locating }, null);
    const simulator = await simulatorFor(connector, { rules: 'compat', known: { country: 'SWE', home: 'baltic_sea' } });
    const events: RunEvent[] = [];
    try {
      const outcome = await runDecision({
        question,
        rules: '',
        technique: 'plan-dag',
        connector,
        connectionDescription: 'DQA',
        toolMode: 'tools',
        limits: defaultRunLimits,
        gate: { interactive: false, review: async () => ({ action: 'approve' }) },
        ...(simulator ? { simulator } : {}),
        ...(seed === undefined ? {} : { seed }),
        emit: (event) => events.push(event),
        provider: createOpenAiProvider(parseProviderSettings({ baseUrl: server.baseUrl, model: 'scripted', toolMode: 'tools' })),
      });
      server.verify();
      return { outcome, events, server };
    } finally {
      await connector.close();
    }
  }

  const firstRun = () =>
    automaticRun([
      plannerTurn(rootsAndJoin),
      queryTurn('Q1.1', "SELECT source FROM flow WHERE dest = 'nowhere'"),
      queryTurn('Q1.2', "SELECT base_trading_power FROM node_country WHERE country_name = 'SWE'"),
      nodeTurn('Q1.1', 'answer', { answer: ['novgorod'] }),
      nodeTurn('Q1.2', 'answer', { answer: 'power MARK-Q12' }),
      nodeTurn('Q2.1', 'decide', { decision: 'novgorod', rationale: 'r' }),
    ]);

  it('re-runs an edited node and exactly its descendants, keeps the other answers, and decides again under the simulator\'s check', async () => {
    const first = await firstRun();
    expect(first.events.find((event) => event.type === 'decision')).toMatchObject({ decision: 'novgorod', verification: { agrees: false } });

    const edited = 'Which trade nodes send trade into baltic_sea (RE-RUN)?';
    const seed = rerunSeed(first.events, { fromRun: 'run-1', node: 'Q1.1', question: edited });
    expect(seed.rerun.stale).toEqual(['Q2.1']);
    expect(seed.answers.map((answer) => answer.id)).toEqual(['Q1.2']);
    const second = await automaticRun(
      [
        queryTurn('Q1.1', "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source", { expect: (request) => (promptOf(request).includes(edited) ? undefined : 'the edited question') }),
        nodeTurn('Q1.1', 'answer', { answer: ['krakow', 'novgorod'] }),
        nodeTurn('Q2.1', 'decide', { decision: 'krakow', rationale: 'r' }, { expect: (request) => (promptOf(request).includes('Of the nodes in krakow, novgorod') && promptOf(request).includes('power MARK-Q12') ? undefined : 'the join reads the new Q1.1 and the kept Q1.2') }),
      ],
      seed,
    );
    expect(second.outcome).toMatchObject({ status: 'answered', decision: 'krakow' });
    // No planner call, no call for the kept node.
    expect(second.server.chatRequests().map(nodeOf)).toEqual(['Q1.1', 'Q1.1', 'Q2.1']);
    expect(second.events.filter((event) => event.type === 'analyst-review')).toMatchObject([{ subject: 'plan', node: 'Q1.1', action: 'edit', note: '[ext] re-ran Q1.1 of run run-1 with an edited question; stale descendants run again: Q2.1' }]);
    expect(toolInputs(second.events, 'plan-dag.node').find((event) => event.node === 'Q1.2')?.input).toMatchObject({ status: 'answered', reusedFrom: 'run-1', answer: 'power MARK-Q12', calls: [] });
    expect(second.events.find((event) => event.type === 'decision')).toMatchObject({ decision: 'krakow', verification: { agrees: true } });
  });

  it('re-runs with a pinned answer: the node makes no call, its descendants read the pin; bad re-runs are refused clearly', async () => {
    const first = await firstRun();
    const seed = rerunSeed(first.events, { fromRun: 'run-1', node: 'Q1.1', pinned: 'krakow, novgorod' });
    const second = await automaticRun([nodeTurn('Q2.1', 'decide', { decision: 'krakow', rationale: 'r' }, { expect: (request) => (promptOf(request).includes('Of the nodes in krakow, novgorod') ? undefined : 'the join reads the pin') })], seed);
    expect(second.outcome).toMatchObject({ status: 'answered', decision: 'krakow' });
    expect(toolInputs(second.events, 'plan-dag.node').find((event) => event.node === 'Q1.1')?.input).toMatchObject({ pinned: true, answer: 'krakow, novgorod' });

    expect(() => rerunSeed(first.events, { fromRun: 'run-1', node: 'Q9.9' })).toThrow('Run run-1 has no node Q9.9');
    expect(() => rerunSeed(first.events, { fromRun: 'run-1', node: 'Q1.1', question: 'Given <A2.1>, which nodes?' })).toThrow('The edited node Q1.1 makes the plan invalid: the plan has a cycle: Q1.1 → Q2.1 → Q1.1');
    expect(() => rerunSeed([], { fromRun: 'run-0', node: 'Q1.1' })).toThrow('Run run-0 is not a finished Plan*RAG run with a plan graph, so it has no node to re-run');
  });
});
