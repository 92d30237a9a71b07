/**
 * Benchmark of Plan*RAG against PlanRAG: `npm run bench:plan-dag` (reads DQA_DIR, default
 * fixtures/dqa; BENCH_DELAY_MS sets the scripted model's fixed delay per call, default 150).
 *
 * The same sub-questions — "which nodes flow into <node>?" for 2, 4, 8 and 12 trade nodes of a
 * DQA Locating database, then a decision — go through both techniques against the scripted
 * OpenAI-compatible server, on a real SQLite file:
 * - PlanRAG: one conversation; a plan, one query per sub-question, the answer. Every call
 *   carries the whole conversation so far.
 * - Plan*RAG: a planner call, then the sub-questions as the roots of a plan graph (each a query
 *   call and an answer call, a level's nodes at once, at most 4 in flight), then the join that
 *   decides. Every node call carries only its own context.
 * Printed per plan size and technique, measured in one run each: model calls, total prompt
 * tokens and the largest single prompt (as the server counts them, from the prompt's size),
 * the run's wall time, and the sequential sum (every call's latency added up). The goal: the
 * largest Plan*RAG prompt stays flat as plans grow while PlanRAG's grows, and Plan*RAG's wall
 * time follows the levels (≈ the sum over levels of the slowest node), not the call count.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunEvent } from '../src-main/contract/run';
import { runToDirectory } from '../src-main/engine/run-setup';
import { planDagTechnique } from '../src-main/engine/techniques/plan-dag/technique';
import { registerTechnique } from '../src-main/engine/techniques/registry';
import { parseProviderSettings } from '../src-main/llm/settings';
import { sqliteFromDqaDump } from '../test/support/fixtures';
import { nodeTurn, plannerTurn, queryTurn } from '../test/support/plan-dag-script';
import { startScriptedOpenAiServer, type ScriptStep } from '../test/support/scripted-openai';

const delayMs = Number(process.env['BENCH_DELAY_MS'] ?? 150);
const sizes = [2, 4, 8, 12];
const concurrency = 4;
const tradeNodes = ['baltic_sea', 'lubeck', 'krakow', 'novgorod', 'wien', 'venice', 'genua', 'champagne', 'rheinland', 'english_channel', 'sevilla', 'constantinople'];
const question = 'Assume that you are the ruler of the country named "SWE". Our home node is "baltic_sea". Where should I allocate my merchant to steer trade to "baltic_sea"?';
const rules = 'profit = (local_value + ingoing) * country_power / total_power; a merchant steers flow from a source node towards the home node.';

interface Measured {
  technique: string;
  size: number;
  calls: number;
  promptTokens: number;
  largestPrompt: number;
  /** From the first model request to the end of the run (the database opened and fingerprinted before is left out). */
  wallMs: number;
  sequentialMs: number;
  /** Plan*RAG: the join's prompt, which reads every root's answer. */
  joinPrompt: number | null;
  levels: number;
  status: string;
}

const sourcesQuery = (node: string): string => `SELECT source, flow FROM flow WHERE dest = '${node}' ORDER BY source`;

function planRagScript(size: number): ScriptStep[] {
  const nodes = tradeNodes.slice(0, size);
  return [
    { delayMs, toolCalls: [{ name: 'plan', arguments: { steps: [...nodes.map((node) => `Which nodes flow into ${node}?`), 'Decide'] } }] },
    ...nodes.map((node): ScriptStep => ({ delayMs, toolCalls: [{ name: 'query', arguments: { query: sourcesQuery(node) } }] })),
    { delayMs, toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'krakow feeds baltic_sea.' } }] },
  ];
}

function planDagScript(size: number): ScriptStep[] {
  const nodes = tradeNodes.slice(0, size);
  const ids = nodes.map((_, index) => `Q1.${index + 1}`);
  const plan = {
    nodes: [
      ...nodes.map((node, index) => ({ id: ids[index], question: `Which nodes flow into ${node}?`, parents: [] })),
      { id: 'Q2.1', question: `Decide from ${ids.map((id) => `<A${id.slice(1)}>`).join(', ')}.`, parents: ids, compute: true },
    ],
    final: 'Q2.1',
  };
  return [
    plannerTurn(plan, { delayMs }),
    ...nodes.flatMap((node, index) => [
      queryTurn(ids[index] as string, sourcesQuery(node), { delayMs }),
      nodeTurn(ids[index] as string, 'answer', { answer: `the sources of ${node}` }, { delayMs }),
    ]),
    nodeTurn('Q2.1', 'decide', { decision: 'krakow', rationale: 'krakow feeds baltic_sea.' }, { delayMs }),
  ];
}

async function measure(technique: string, size: number, script: ScriptStep[], database: string, outRoot: string): Promise<Measured> {
  const server = await startScriptedOpenAiServer(script);
  try {
    const events: RunEvent[] = [];
    let firstRequest: number | null = null;
    let ended = 0;
    const result = await runToDirectory({
      outDir: join(outRoot, `${technique}-${size}`),
      question,
      rules,
      technique,
      connection: { target: { engine: 'sqlite', path: database }, description: 'DQA Locating 1445' },
      model: { settings: parseProviderSettings({ baseUrl: server.baseUrl, model: 'scripted', toolMode: 'tools' }) },
      simulator: { rules: 'off', known: {} },
      whatIf: false,
      limits: { maxSteps: 100 },
      onEvent: (event) => {
        events.push(event);
        if (event.type === 'model-request') firstRequest ??= performance.now();
        if (event.type === 'run-end') ended = performance.now();
      },
    });
    server.verify();
    const responses = events.flatMap((event) => (event.type === 'model-response' ? [event] : []));
    const prompts = responses.map((response) => response.usage?.promptTokens ?? 0);
    const summary = events.find((event) => event.type === 'tool' && event.tool === 'plan-dag.summary');
    return {
      technique,
      size,
      calls: responses.length,
      promptTokens: prompts.reduce((sum, tokens) => sum + tokens, 0),
      largestPrompt: Math.max(...prompts),
      wallMs: ended - (firstRequest ?? ended),
      joinPrompt: responses.find((response) => response.node === 'Q2.1')?.usage?.promptTokens ?? null,
      sequentialMs: responses.reduce((sum, response) => sum + response.latencyMs, 0),
      levels: summary && summary.type === 'tool' ? ((summary.input as { levels: unknown[] }).levels.length ?? 0) : 0,
      status: result.status,
    };
  } finally {
    await server.close();
  }
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'dwb-bench-plan-dag-'));
  const remove = registerTechnique(planDagTechnique({ id: 'plan-dag-bench', label: 'Plan*RAG (bench)', summary: 'bench', concurrency }));
  try {
    const database = sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', work);
    const rows: Measured[] = [];
    for (const size of sizes) {
      rows.push(await measure('planrag', size, planRagScript(size), database, work));
      rows.push(await measure('plan-dag-bench', size, planDagScript(size), database, work));
    }
    console.log(`Plan*RAG against PlanRAG — scripted model, ${delayMs} ms per call, SQLite DQA Locating 1445, Plan*RAG concurrency ${concurrency}`);
    console.log('');
    const header = ['sub-questions', 'technique', 'status', 'calls', 'prompt tokens', 'largest prompt', 'join prompt', 'wall ms', 'sequential sum ms', 'wall / sequential', 'model-only ms'];
    const table = rows.map((row) => {
      // PlanRAG waits for every call in turn; Plan*RAG for the planner, then per level the slowest node (query + answer at most ⌈width/concurrency⌉ times), then the join.
      const expected = row.technique === 'planrag' ? row.calls * delayMs : delayMs * (1 + 2 * Math.ceil(row.size / concurrency) + 1);
      return [
        String(row.size),
        row.technique === 'planrag' ? 'PlanRAG' : 'Plan*RAG',
        row.status,
        String(row.calls),
        String(row.promptTokens),
        String(row.largestPrompt),
        row.joinPrompt === null ? '' : String(row.joinPrompt),
        String(Math.round(row.wallMs)),
        String(Math.round(row.sequentialMs)),
        (row.wallMs / row.sequentialMs).toFixed(2),
        String(expected),
      ];
    });
    const widths = header.map((title, column) => Math.max(title.length, ...table.map((cells) => (cells[column] ?? '').length)));
    const line = (cells: string[]): string => cells.map((cell, column) => cell.padStart(widths[column] ?? 0)).join('  ');
    console.log(line(header));
    for (const cells of table) console.log(line(cells));
    const largest = (technique: string) => rows.filter((row) => row.technique === technique).map((row) => row.largestPrompt);
    const growth = (values: number[]): string => `${values[0]} → ${values.at(-1)} (×${((values.at(-1) ?? 0) / (values[0] ?? 1)).toFixed(2)})`;
    console.log('');
    console.log(`largest prompt from ${sizes[0]} to ${sizes.at(-1)} sub-questions: PlanRAG ${growth(largest('planrag'))}, Plan*RAG ${growth(largest('plan-dag-bench'))}`);
    console.log('wall ms: first model request to run end; sequential sum: every model call\'s latency added up; model-only ms: the calls\' fixed delay along the critical path (PlanRAG: every call; Plan*RAG: planner, per level its slowest node, join).');
    console.log('Plan*RAG\'s join reads one answer per root, so it grows with the plan\'s width, by the answers only; every other node prompt stays the size of one sub-question\'s context.');
  } finally {
    remove();
    rmSync(work, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
