import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src-main/contract/run';
import { openSqliteConnector } from '../../../src-main/connectors/sqlite/sqlite-connector';
import { defaultRunLimits, runDecision } from '../../../src-main/engine/decision-run';
import { MemoryCellSink } from '../../../src-main/engine/memory-cell-sink';
import { automaticGate } from '../../../src-main/engine/review-gate';
import { createRunCellWriter } from '../../../src-main/engine/run-cells';
import { RunLog } from '../../../src-main/engine/run-log';
import { createOpenAiProvider } from '../../../src-main/llm/openai-provider';
import { bundleFromRun } from '../../../src-main/reports/prepare-bundle';
import { buildReport } from '../../../src-main/reports/report-model';
import { markdownLiteral } from '../../../src-main/reports/markdown-text';
import { renderMarkdownReport } from '../../../src-main/reports/render-markdown';
import { runWhatIfFor, whatIfSupport } from '../../../src-main/whatif';
import { startScriptedOpenAiServer } from '../../support/scripted-openai';
import type { ScriptStep } from '../../support/scripted-openai/script';
import { fileHash } from '../../support/fixtures';
import { sampleMaterials } from '../../unit/reports/bundle-fixture';
import { useCleanups, useSqliteFromDqaDump } from '../../support/lifecycle';

const locatingPath = useSqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql');

const onCleanup = useCleanups();

// Doubling SWE's power at one node raises its total by exactly its power there.
const change = "UPDATE node_country SET calculated_trading_power = calculated_trading_power * 2 WHERE country_name = 'SWE' AND trade_node = :candidate";
const objective = "SELECT sum(calculated_trading_power) FROM node_country WHERE country_name = 'SWE'";
const candidatesQuery = "SELECT trade_node FROM node_country WHERE country_name = 'SWE' ORDER BY trade_node";

/** SWE's strongest node, read straight from the data: what the experiment must find. */
function strongestSweNode(): { node: string; power: number; nodes: number } {
  const database = new Database(locatingPath(), { readonly: true });
  try {
    const rows = database.prepare("SELECT trade_node AS node, calculated_trading_power AS power FROM node_country WHERE country_name = 'SWE' ORDER BY power DESC").all() as { node: string; power: number }[];
    const top = rows[0];
    if (!top) throw new Error('fixture: SWE has no nodes');
    return { ...top, nodes: rows.length };
  } finally {
    database.close();
  }
}

async function runScript(script: ScriptStep[], options: { toolMode: 'tools' | 'text'; whatIf: boolean }) {
  const server = await startScriptedOpenAiServer(script);
  const connector = openSqliteConnector({ path: locatingPath() });
  onCleanup(() => server.close(), () => connector.close());
  const provider = createOpenAiProvider({ baseUrl: server.baseUrl, model: 'scripted', requestTimeoutMs: 5000, maxRetries: 0, toolMode: options.toolMode });
  const whatIf = runWhatIfFor({ engine: 'sqlite', path: locatingPath() }, connector, options.whatIf);
  const log = new RunLog('run-whatif');
  const sink = new MemoryCellSink('run-whatif');
  log.onEntry(createRunCellWriter(sink, { runId: 'run-whatif', connectionId: 'conn-1', afterCellId: null }));
  const events: RunEvent[] = [];
  const outcome = await runDecision({
    question: 'At which node should SWE double its trading power?',
    rules: 'More total trading power is better.',
    technique: 'iterrag',
    connector,
    connectionDescription: 'locating-1445 (SQLite)',
    provider,
    toolMode: options.toolMode,
    limits: { ...defaultRunLimits, queryTimeoutMs: 5000 },
    gate: automaticGate,
    emit: (event) => {
      events.push(event);
      log.append(event);
    },
    ...(whatIf ? { whatIf } : {}),
  });
  return { outcome, events, cells: sink.cells, server };
}

describe('the whatif tool in a decision run (real openai SDK, scripted server, DQA SQLite file)', () => {
  it('ranks candidates on a copy, reports a bad experiment back to the model, and leaves the file untouched', async () => {
    const expected = strongestSweNode();
    const before = fileHash(locatingPath());
    const { outcome, events, cells } = await runScript(
      [
        {
          expectTools: ['query', 'whatif', 'answer'],
          toolCalls: [{ name: 'whatif', arguments: { change, objective, candidatesQuery } }],
        },
        {
          expectToolResultContains: [`best: ${expected.node}`, 'database itself is unchanged', 'rank | candidate | before | after | delta | changed rows'],
          toolCalls: [{ name: 'whatif', arguments: { change: 'SELECT 1 WHERE 1 = :candidate', objective, candidates: ['baltic_sea'] } }],
        },
        {
          expectToolResultContains: ['What-if failed (invalid-request)', 'must be a statement that modifies data'],
          toolCalls: [{ name: 'answer', arguments: { decision: expected.node, rationale: 'The what-if ranks it first.' } }],
        },
      ],
      { toolMode: 'tools', whatIf: true },
    );

    expect(outcome.status).toBe('answered');
    const experiments = events.filter((event): event is Extract<RunEvent, { type: 'whatif' }> => event.type === 'whatif');
    expect(experiments).toHaveLength(2);
    const [ranked, failed] = experiments;
    expect(ranked?.result?.best).toBe(expected.node);
    expect(ranked?.result?.rows).toHaveLength(expected.nodes);
    expect(ranked?.result?.rows[0]?.delta).toBeCloseTo(expected.power, 9);
    expect(ranked?.result?.sourceDigestBefore).toBe(ranked?.result?.sourceDigestAfter);
    expect(failed?.result).toBeNull();
    expect(failed?.error?.code).toBe('invalid-request');
    expect(fileHash(locatingPath())).toBe(before);

    // Both experiments are cells of the notebook, with their outcome.
    const whatIfCells = cells.filter((cell) => cell.kind === 'whatif');
    expect(whatIfCells.map((cell) => cell.output?.status)).toEqual(['whatif', 'error']);
    expect(JSON.parse(whatIfCells[0]?.source ?? '{}')).toMatchObject({ change, objective, candidatesQuery, direction: 'maximize' });
    expect(whatIfCells[0]?.connectionId).toBe('conn-1');

    // And the report shows them, with the proof that the source was not touched.
    const report = buildReport(bundleFromRun(sampleMaterials(events), { at: '2026-01-02T10:00:00.000Z', signOff: null, generator: 'test' }));
    const markdown = renderMarkdownReport(report);
    expect(markdown).toContain(`**What-if on a copy of the data:** best ${markdownLiteral(expected.node)}`);
    expect(markdown).toContain(ranked?.result?.sourceDigestAfter ?? 'missing');
    expect(markdown).toContain('**What-if failed** (invalid-request)');
  });

  it('speaks the plain-text protocol too, and is not offered when turned off', async () => {
    const expected = strongestSweNode();
    const textRun = await runScript(
      [
        {
          content: `Thought: try each node\nAction: whatif\nAction Input:\n${JSON.stringify({ change, objective, candidates: [expected.node, 'no_such_node'] })}`,
        },
        { expectLastMessageContains: [`best: ${expected.node}`, 'the change modified no rows for 1 candidate(s): no_such_node'], content: `Final Answer: ${expected.node}\nRationale: best in the what-if` },
      ],
      { toolMode: 'text', whatIf: true },
    );
    expect(textRun.outcome.status).toBe('answered');
    expect(textRun.events.some((event) => event.type === 'whatif' && event.result?.best === expected.node)).toBe(true);

    const off = await runScript([{ expectTools: ['query', 'answer'], toolCalls: [{ name: 'answer', arguments: { decision: 'baltic_sea', rationale: 'guess' } }] }], { toolMode: 'tools', whatIf: false });
    expect(off.outcome.status).toBe('answered');
  });

  it('is offered on SQL data: files copied byte for byte, server tables copied into DuckDB; not on graphs', () => {
    const connector = openSqliteConnector({ path: locatingPath() });
    onCleanup(() => connector.close());
    expect(runWhatIfFor({ engine: 'sqlite', path: locatingPath() }, connector, true)?.note).toBeNull();
    expect(runWhatIfFor({ engine: 'duckdb', format: 'parquet', path: '/data/x.parquet' }, connector, true)?.note).toBeNull();
    expect(runWhatIfFor({ engine: 'sqlite', path: locatingPath() }, connector, false)).toBeNull();
    for (const target of [
      { engine: 'postgres', url: 'postgres://analyst@127.0.0.1:5432/sales' },
      { engine: 'mysql', url: 'mysql://analyst@127.0.0.1:3306/sales' },
    ] as const) {
      expect(runWhatIfFor(target, connector, true)?.note).toMatch(/^The experiment runs in DuckDB on a local copy of the tables .* naming the candidate \$candidate\./);
    }
    for (const target of [
      { engine: 'neo4j', url: 'neo4j://127.0.0.1:7687' },
      { engine: 'kuzu', path: '/data/graph.kuzu' },
    ] as const) {
      expect(runWhatIfFor(target, connector, true)).toBeNull();
      const support = whatIfSupport(target);
      expect(support.supported === false && support.reason).toMatch(/graph, queried in Cypher$/);
    }
  });
});
