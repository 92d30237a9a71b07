/**
 * Benchmark of the decision engine's own cost: `npm run bench:engine`. A PlanRAG run (plan,
 * queries, a re-plan, more queries, an answer) is recorded once against the bundled Locating
 * demo in a tiny SQLite file, then replayed through the engine many times with the replay
 * provider (no model) and an in-memory cell sink. The connector's time (the SQLite worker
 * answering queries and the schema) is measured around each call and printed apart, so what is
 * left is the engine: prompts, validation, the turn executor, events, the hash chain, the cell
 * projection. Then the same through `runToDirectory` (files written, the set-up the app, the
 * CLI and the technique benchmark share). Prints figures; asserts nothing.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Connector } from '../src-main/connectors/connector';
import { openSqliteConnector } from '../src-main/connectors/sqlite/sqlite-connector';
import { parseSqlDump } from '../src-main/dqa/sql-dump';
import { writeSqliteDatabase } from '../src-main/dqa/sqlite-import';
import { MemoryCellSink } from '../src-main/engine/memory-cell-sink';
import { executeRun, runToDirectory } from '../src-main/engine/run-setup';
import { readTranscript } from '../src-main/llm/transcript';
import type { ModelProvider, ModelResponse } from '../src-main/llm/types';
import { createReplayProvider } from '../src-main/llm/replay-provider';

const REPLAYS = 30;
const question = 'Where should SWE place its merchant to maximise profit at baltic_sea?';

/** The run that is recorded: 12 model calls. */
const script: { name: string; arguments: unknown }[] = [
  { name: 'plan', arguments: { steps: ['Home node values', 'Who feeds the home node', 'SWE power upstream', 'Decide'] } },
  { name: 'query', arguments: { query: "SELECT local_value, ingoing FROM trade_node WHERE trade_node = 'baltic_sea'" } },
  { name: 'query', arguments: { query: "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source" } },
  { name: 'query', arguments: { query: 'SELECT trade_node, local_value FROM trade_node ORDER BY local_value DESC LIMIT 20' } },
  { name: 'replan', arguments: { steps: ['SWE power in krakow', 'SWE power in lubeck', 'Decide'], reason: 'krakow and lubeck feed the home node' } },
  { name: 'query', arguments: { query: "SELECT base_trading_power FROM node_country WHERE trade_node = 'krakow' AND country_name = 'SWE'" } },
  { name: 'query', arguments: { query: "SELECT base_trading_power FROM node_country WHERE trade_node = 'lubeck' AND country_name = 'SWE'" } },
  { name: 'query', arguments: { query: 'SELECT country_name, SUM(base_trading_power) AS power FROM node_country GROUP BY country_name ORDER BY power DESC LIMIT 10' } },
  { name: 'query', arguments: { query: 'SELECT * FROM flow LIMIT 200' } },
  { name: 'query', arguments: { query: 'SELECT * FROM node_country LIMIT 500' } },
  { name: 'query', arguments: { query: "SELECT dest, SUM(flow) FROM flow GROUP BY dest ORDER BY 2 DESC" } },
  { name: 'answer', arguments: { decision: 'krakow', rationale: 'SWE steers the most value toward baltic_sea from krakow.' } },
];

/** A provider that answers from the script, for the one recording run. */
function scriptedProvider(): ModelProvider {
  let next = 0;
  return {
    description: 'scripted benchmark model',
    async generate(): Promise<ModelResponse> {
      const call = script[next] ?? script[script.length - 1]!;
      next += 1;
      return {
        content: '',
        toolCalls: [{ id: `call-${next}`, name: call.name, arguments: JSON.stringify(call.arguments) }],
        finishReason: 'tool_calls',
        usage: { promptTokens: 1000 + next * 300, completionTokens: 60, totalTokens: 1060 + next * 300 },
        latencyMs: 0,
        model: 'scripted',
      };
    },
  };
}

/** Times every call of the connector, so its share can be taken out of the run's time. */
function timedConnector(inner: Connector): { connector: Connector; spent: { queries: number; queryMs: number; schemaMs: number } } {
  const spent = { queries: 0, queryMs: 0, schemaMs: 0 };
  const connector: Connector = {
    ...inner,
    engine: inner.engine,
    dialect: inner.dialect,
    schema: async () => {
      const started = performance.now();
      try {
        return await inner.schema();
      } finally {
        spent.schemaMs += performance.now() - started;
      }
    },
    query: async (text, options) => {
      const started = performance.now();
      try {
        return await inner.query(text, options);
      } finally {
        spent.queries += 1;
        spent.queryMs += performance.now() - started;
      }
    },
    close: () => inner.close(),
  };
  return { connector, spent };
}

function format(ms: number): string {
  return ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`;
}

async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'dwb-bench-engine-'));
  try {
    const dump = join(__dirname, '..', 'resources', 'demo', 'locating-1445.sql');
    const database = join(directory, 'locating.sqlite');
    writeSqliteDatabase(parseSqlDump(readFileSync(dump, 'utf8'), dump), database);
    const target = { engine: 'sqlite' as const, path: database };

    // Record once.
    const recordDir = join(directory, 'recorded');
    const recorded = await runToDirectory({
      outDir: recordDir,
      question,
      rules: '',
      technique: 'planrag',
      connection: { target, description: 'locating-1445.sqlite' },
      model: { provider: scriptedProvider(), settings: null, toolMode: 'tools' },
      simulator: { rules: 'off', known: {} },
      whatIf: false,
    });
    if (recorded.status !== 'answered') throw new Error(`The recording run ended ${recorded.status}: ${recorded.message ?? ''}`);
    const transcript = readTranscript(readFileSync(join(recordDir, 'transcript.jsonl'), 'utf8'));
    console.log(`Recorded a PlanRAG run: ${recorded.steps} model calls, ${transcript.exchanges.length} exchanges.`);

    // Replay in memory: the engine alone, with the connector's time measured apart.
    const opening = performance.now();
    const inner = openSqliteConnector({ path: database });
    const { connector, spent } = timedConnector(inner);
    await connector.schema(); // the worker starts here, not in the first replay
    const startupMs = performance.now() - opening;
    spent.schemaMs = 0;
    let totalMs = 0;
    let steps = 0;
    let events = 0;
    let cells = 0;
    for (let replay = 0; replay < REPLAYS; replay += 1) {
      const sink = new MemoryCellSink(`bench-${replay}`);
      const started = performance.now();
      const outcome = await executeRun({
        runId: `bench-${replay}`,
        question,
        rules: '',
        technique: 'planrag',
        connector,
        target,
        connectionDescription: 'locating-1445.sqlite',
        model: { provider: createReplayProvider(transcript), settings: null, toolMode: 'tools' },
        transcript: { write: () => undefined },
        log: { append: () => void events++ },
        cells: { sink, connectionId: null, afterCellId: null },
        simulator: null,
        whatIf: false,
      });
      totalMs += performance.now() - started;
      if (outcome.status !== 'answered') throw new Error(`Replay ${replay} ended ${outcome.status}: ${outcome.message ?? ''}`);
      steps += outcome.steps;
      cells += sink.cells.length;
    }
    await connector.close();
    const databaseMs = spent.queryMs + spent.schemaMs;
    const engineMs = totalMs - databaseMs;
    console.log(`\nIn memory, ${REPLAYS} replays (${steps / REPLAYS} model calls, ${events / REPLAYS} events, ${cells / REPLAYS} cells each):`);
    console.log(`  whole run           ${format(totalMs / REPLAYS)}`);
    console.log(`  database (SQLite)   ${format(databaseMs / REPLAYS)}  (${spent.queries / REPLAYS} queries: ${format(spent.queryMs / spent.queries)} each; schema ${format(spent.schemaMs / REPLAYS)})`);
    console.log(`  engine              ${format(engineMs / REPLAYS)}  = ${format(engineMs / steps)} per model call`);

    // The same through runToDirectory: files, a connector opened per run.
    let directoryMs = 0;
    for (let replay = 0; replay < REPLAYS; replay += 1) {
      const result = await runToDirectory({
        outDir: join(directory, `replay-${replay}`),
        question,
        rules: '',
        technique: 'planrag',
        connection: { target, description: 'locating-1445.sqlite' },
        model: { replay: transcript, toolMode: 'tools' },
        simulator: { rules: 'off', known: {} },
        whatIf: false,
      });
      if (result.status !== 'answered') throw new Error(`Directory replay ${replay} ended ${result.status}`);
      directoryMs += result.wallTimeMs;
    }
    console.log(`\nrunToDirectory, ${REPLAYS} replays (opens the SQLite worker, writes notebook, log and transcript):`);
    console.log(`  whole run           ${format(directoryMs / REPLAYS)}  (${format(directoryMs / REPLAYS - totalMs / REPLAYS)} more than in memory)`);
    console.log(`  of which the SQLite worker's start and first schema read: about ${format(startupMs)} (measured once above)`);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
