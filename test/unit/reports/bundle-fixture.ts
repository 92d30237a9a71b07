import { signerFromPem, type Signer } from '../../../src-main/audit/signing';
import type { RunEvent } from '../../../src-main/contract/run';
import { MemoryCellSink } from '../../../src-main/engine/memory-cell-sink';
import { createRunCellWriter } from '../../../src-main/engine/run-cells';
import { RunLog } from '../../../src-main/engine/run-log';
import { resultDigest } from '../../../src-main/engine/result-digest';
import type { ReportBundle, SignOffInput } from '../../../src-main/reports/bundle-format';
import type { RunMaterials } from '../../../src-main/reports/create-bundle';
import { bundleFromRun } from '../../../src-main/reports/prepare-bundle';

/** A clock that ticks one second per call, so bundles built in tests are identical every time. */
export function tickingClock(start = Date.UTC(2026, 0, 1, 9, 0, 0)): () => string {
  let tick = 0;
  return () => new Date(start + 1000 * tick++).toISOString();
}

const flowResult = {
  columns: [
    { name: 'source', type: 'TEXT' },
    { name: 'flow', type: 'REAL' },
  ],
  rows: [
    ['krakow', 4.777],
    ['lubeck', 2.5],
    ['novgorod', null],
  ] as (string | number | null)[][],
  rowCount: 3,
  truncated: false,
  elapsedMs: 3,
};

/** A planned run with a re-plan, queries, an analyst's edit and note, and hostile text from the model. */
export function sampleEvents(): RunEvent[] {
  return [
    {
      type: 'run-start',
      technique: 'planrag',
      question: 'Where should SWE place its merchant to maximise profit at baltic_sea?',
      rules: 'Merchants steer trade value <b>toward</b> the home node.',
      mode: 'step',
      connection: { engine: 'sqlite', description: 'sqlite:/data/locating.sqlite', fingerprint: { schemaHash: 'a'.repeat(64), fileHash: 'b'.repeat(64), fileBytes: 163840 } },
      model: { description: 'scripted at http://127.0.0.1:9/v1', toolMode: 'tools', endpoint: 'http://127.0.0.1:9/v1', name: 'scripted', temperature: 0.2, maxTokens: 2048 },
      limits: { maxSteps: 20, maxTokens: null, maxDurationMs: 900000 },
    },
    { type: 'model-request', step: 1, tools: ['plan'], messageCount: 2 },
    { type: 'model-response', step: 1, content: '', toolCalls: [{ id: 'c1', name: 'plan', arguments: '{}' }], usage: { promptTokens: 500, completionTokens: 20, totalTokens: 520 }, latencyMs: 812 },
    { type: 'plan', step: 1, steps: ['Home node values', 'Upstream nodes'] },
    { type: 'model-request', step: 2, tools: ['query', 'replan', 'answer'], messageCount: 4 },
    { type: 'model-response', step: 2, content: 'Check <script>alert(1)</script> flows.', toolCalls: [{ id: 'c2', name: 'query', arguments: '{}' }], usage: { promptTokens: 900, completionTokens: 40, totalTokens: 940 }, latencyMs: 1204 },
    { type: 'thought', step: 2, text: 'Check <script>alert(1)</script> flows.' },
    { type: 'analyst-review', step: 2, action: 'edit', subject: 'query', original: 'SELECT * FROM flow', edited: "SELECT source, flow FROM flow WHERE dest = 'baltic_sea'", note: null },
    { type: 'query-start', step: 2, queryId: 'q1', query: "SELECT source, flow FROM flow WHERE dest = 'baltic_sea'", author: 'analyst' },
    { type: 'query-end', step: 2, queryId: 'q1', result: flowResult, error: null, digest: resultDigest(flowResult) },
    { type: 'observation', step: 2, queryId: 'q1', text: 'rows: 3 (complete)\nsource | flow\nkrakow | 4.777\nlubeck | 2.5\nnovgorod | NULL' },
    { type: 'model-request', step: 3, tools: ['query', 'replan', 'answer'], messageCount: 6 },
    { type: 'model-response', step: 3, content: '', toolCalls: [{ id: 'c3', name: 'replan', arguments: '{}' }], usage: null, latencyMs: 640 },
    { type: 'analyst-review', step: 3, action: 'note', subject: 'replan', original: 'SWE power in krakow\nDecide', edited: null, note: 'Remember the <i>trade</i> rules & the cap.' },
    { type: 'replan', step: 3, previous: ['Home node values', 'Upstream nodes'], steps: ['Home node values', 'SWE power in krakow', 'Decide'], reason: 'krakow feeds the home node', author: 'model' },
    { type: 'model-request', step: 4, tools: ['query', 'replan', 'answer'], messageCount: 8 },
    { type: 'model-response', step: 4, content: '', toolCalls: [{ id: 'c4', name: 'query', arguments: '{}' }], usage: { promptTokens: 1100, completionTokens: 30, totalTokens: 1130 }, latencyMs: 900 },
    { type: 'query-start', step: 4, queryId: 'q2', query: 'SELECT nope FROM missing', author: 'model' },
    { type: 'query-end', step: 4, queryId: 'q2', result: null, error: { name: 'WorkbenchError', code: 'syntax', message: 'no such table: missing', retryable: false }, digest: null },
    { type: 'observation', step: 4, queryId: 'q2', text: 'Error (syntax): no such table: missing. Correct the query and try again.' },
    {
      type: 'simulation',
      step: 4,
      requested: ['krakow', 'lubeck'],
      result: {
        spec: { scenario: 'locating', country: 'SWE', home: 'baltic_sea', rules: 'stated' },
        candidates: [
          { candidate: 'krakow', before: 10.5, after: 12.25, delta: 1.75, rank: 1 },
          { candidate: 'lubeck', before: 10.5, after: 11, delta: 0.5, rank: 2 },
        ],
        best: 'krakow',
        margin: 1.25,
        tied: ['krakow'],
        objective: 'SWE trade income at baltic_sea',
        direction: 'maximize',
        candidateSet: 'the nodes upstream of baltic_sea',
        notes: ['Values in ducats per month.'],
        elapsedMs: 12,
      },
    },
    { type: 'model-request', step: 5, tools: ['query', 'replan', 'answer'], messageCount: 10 },
    { type: 'model-response', step: 5, content: '', toolCalls: [{ id: 'c5', name: 'answer', arguments: '{}' }], usage: { promptTokens: 1300, completionTokens: 60, totalTokens: 1360 }, latencyMs: 1500 },
    {
      type: 'decision',
      step: 5,
      decision: 'krakow <img src=x onerror=alert(1)>',
      rationale: 'SWE steers the most value from **krakow**.\n\n- <script>alert(2)</script>\n- [click](javascript:alert(3))\n- ![logo](https://example.com/logo.png)',
      evidence: ['q1'],
      verification: { decision: 'krakow', best: 'krakow', tied: ['krakow'], agrees: true, regret: 0, objective: 'SWE trade income at baltic_sea' },
    },
    { type: 'run-end', status: 'answered', message: null, steps: 5, totalTokens: 3950 },
  ];
}

/** The run's materials as `dwb run` would have written them, built in memory. */
export function sampleMaterials(events: RunEvent[] = sampleEvents()): RunMaterials {
  const clock = tickingClock();
  const runId = 'run-test-0001';
  const log = new RunLog(runId, clock);
  const sink = new MemoryCellSink(runId, clock);
  log.onEntry(createRunCellWriter(sink, { runId, connectionId: null, afterCellId: null }));
  const entries = events.map((event) => log.append(event));
  const header = { type: 'header', format: 'decision-workbench/llm-transcript', version: 1, createdAt: '2026-01-01T09:00:00.000Z', provider: 'scripted', settings: { baseUrl: 'http://127.0.0.1:9/v1', model: 'scripted', temperature: 0.2 } };
  const exchanges = entries
    .filter((entry) => entry.event.type === 'model-response')
    .map((entry, index) => ({
      type: 'exchange',
      index,
      startedAt: entry.at,
      endedAt: entry.at,
      request: { messages: [{ role: 'user', content: `call ${index}` }] },
      response: { content: '', toolCalls: [], finishReason: 'tool_calls', usage: null, latencyMs: 10, model: 'scripted-served' },
    }));
  return {
    events: JSON.parse(JSON.stringify(entries)) as unknown[],
    transcript: [header, ...exchanges],
    notebook: { format: 'decision-workbench/notebook', version: 1, title: 'Where should SWE place its merchant?', runId, cells: JSON.parse(JSON.stringify(sink.cells)) as unknown[] },
  };
}

/** Fixed Ed25519 test keys (made for these tests, guarding nothing), so bundles built in tests are identical every time. */
export const analystKeyPem = '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIHOtvxgN18I9OklCPhvJGVcXtRQuZ05Obgegw5bR8w1E\n-----END PRIVATE KEY-----\n';
export const otherKeyPem = '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIO3y6ODQFCcuICNU+xmSdF5ncigngPpg1rT3RxCSK3kQ\n-----END PRIVATE KEY-----\n';
export const analystSigner: Signer = signerFromPem('Ada Analyst', analystKeyPem);

export function sampleBundle(signOff: SignOffInput | null = { name: 'Ada Analyst', comment: 'Checked against the ledger.' }, signer: Signer | null = analystSigner): ReportBundle {
  return bundleFromRun(sampleMaterials(), { at: '2026-01-02T10:00:00.000Z', signOff, generator: 'Decision Workbench test', signer });
}
