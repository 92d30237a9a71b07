import { z } from 'zod';
import { WorkbenchError } from '../../../contract/errors';
import { planGraphEvents } from '../../../contract/plan-graph';
import type { RunEvent } from '../../../contract/run';
import type { ChatMessage } from '../../../llm/types';
import { recordReview } from '../../review-gate';
import type { RunContext, RunOutcome } from '../../run-context';
import { summarizeSchema } from '../../schema-summary';
import { answerTool } from '../../tools/answer';
import { runQuery } from '../../tools/query';
import type { TechniqueDefinition } from '../technique';
import { answerText, type NodeAnswer } from './answers';
import { RunEnding, runNode, type NodeResult, type NodeSettings } from './node-runner';
import { depthOf, descendantsOf, extractJson, levelsOf, maxPlanNodes, planJson, readEditedPlan, readPlan, singleNodePlan, type DagNode, type PlanGraph } from './plan-graph';
import { rerunSeedSchema, type RerunSeed } from './rerun';
import { planRepair, plannerMessages, queryMessages, readQuery, replannerMessages, type RunBrief } from './prompts';
import { decisionReply, nodeAnswerReply, planReply, reactStepReply } from './reply-schemas';
import { jsonReply, type StructuredReply } from '../structured-replies';

/**
 * Plan*RAG (arXiv 2410.20753 v2) on a database: one planner call lays the question out as a
 * DAG of atomic sub-questions; the DAG is run level by level, every node of a level at once
 * (up to `concurrency`), the next level only when the level is done; each node sees only the
 * main question, the rules, the schema, its own question with its parents' answers filled in,
 * its parents' questions and answers, and its own evidence. The final node decides.
 *
 * Extensions, marked [ext] wherever they appear: validation and a bounded repair turn for the
 * plan, strict (deterministic) tag substitution, one correction of a query that could not run,
 * and re-planning of the remaining graph when a node fails or finds nothing.
 */
export interface PlanDagConfig extends NodeSettings {
  id: string;
  label: string;
  summary: string;
  /** Nodes of one level in flight at once (1 in step-through, so the analyst reviews one query at a time). */
  concurrency: number;
  /** Planner repair turns after an unusable plan [ext]; then the single-node plan. */
  planRepairs: number;
  /** Re-plans of the remaining graph when a node fails or returns nothing [ext]; 0 is the paper. */
  replans: number;
}

export const planDagDefaults = {
  retrieval: 'per-node',
  substitution: 'strict',
  queryRepairs: 1,
  reactQueries: 3,
  concurrency: 4,
  planRepairs: 2,
  replans: 0,
} as const satisfies Partial<PlanDagConfig>;

const method = '# Method\nPlan*RAG: the question is planned as a graph of atomic sub-questions, each answered from its own query and its parents\' answers.';

/** The state a checkpoint keeps, so a resumed run skips the planner and the answered nodes. */
const savedStateSchema = z.object({
  graph: z.object({
    nodes: z.array(z.object({ id: z.string(), question: z.string(), parents: z.array(z.string()), level: z.number(), compute: z.boolean(), pinned: z.string().optional() })),
    final: z.string(),
    warnings: z.array(z.string()),
  }),
  answers: z.array(z.object({ id: z.string(), question: z.string(), answer: z.object({ value: z.unknown(), explanation: z.string() }) })),
  replans: z.number(),
  /** Base variant: the shared result, so a resumed run does not retrieve it again. */
  shared: z.string().nullable().optional(),
});
type SavedState = z.infer<typeof savedStateSchema>;

export function planDagTechnique(overrides: Partial<PlanDagConfig> & Pick<PlanDagConfig, 'id' | 'label' | 'summary'>): TechniqueDefinition & { config: PlanDagConfig } {
  const config: PlanDagConfig = { ...planDagDefaults, ...overrides };
  return { id: config.id, label: config.label, summary: config.summary, method, config, structuredReplies: planDagReplies(config), reviews: [{ subject: 'plan', what: 'the plan graph before it runs' }, { subject: 'query', what: 'each node’s query' }], cells: { toolPrefixes: ['plan-dag.'] }, run: (run) => new PlanDagRun(run, config).execute() };
}

/** The JSON replies a variant asks for (./reply-schemas.ts): the plan, and each node's answer or a ReAct node's steps. Queries are written in plain text. */
function planDagReplies(config: PlanDagConfig): StructuredReply[] {
  const react = config.retrieval === 'react' ? [reactStepReply(false), reactStepReply(true)] : [];
  return [planReply(maxPlanNodes), nodeAnswerReply, decisionReply, ...react].map(jsonReply);
}

interface Answered {
  question: string;
  answer: NodeAnswer;
}

class PlanDagRun {
  private brief!: RunBrief;
  /** Set once the plan is read (or resumed, or seeded); a run can end before that. */
  private graph!: PlanGraph;
  private readonly answers = new Map<string, Answered>();
  private readonly results: NodeResult[] = [];
  /** Nodes that never ran because a node they depend on did not answer. */
  private readonly blocked: string[] = [];
  private readonly levelTimes: { level: number; nodes: string[]; wallMs: number }[] = [];
  private replansUsed = 0;
  /** Nodes of the current graph that ran or were blocked (answered ones are in `answers`). */
  private readonly settled = new Set<string>();
  private sharedEvidence: string | null = null;

  constructor(
    private readonly run: RunContext,
    private readonly config: PlanDagConfig,
  ) {}

  async execute(): Promise<RunOutcome> {
    const { run } = this;
    try {
      this.brief = {
        question: run.options.question,
        rules: run.options.rules,
        engine: run.engine,
        schemaSummary: summarizeSchema(await run.options.connector.schema()),
      };
    } catch (error) {
      return run.finish('failed', `Could not read the database schema: ${WorkbenchError.from(error).message}`);
    }
    try {
      const saved = savedStateSchema.safeParse(run.options.resume?.technique);
      const seeded = rerunSeedSchema.safeParse(run.options.seed);
      if (saved.success) {
        this.graph = saved.data.graph;
        for (const answered of saved.data.answers) this.answers.set(answered.id, { question: answered.question, answer: answered.answer });
        this.replansUsed = saved.data.replans;
        this.sharedEvidence = saved.data.shared ?? null;
        run.emit({ type: 'run-resume', step: run.state.steps + 1, messageCount: 0 });
      } else if (seeded.success) {
        this.startRerun(seeded.data);
      } else {
        this.graph = await this.plan();
        if (run.options.gate.interactive) this.graph = await this.reviewPlan(this.graph);
      }
      if (this.config.retrieval === 'shared' && this.sharedEvidence === null) this.sharedEvidence = await this.sharedRetrieval();
      return await this.traverse();
    } catch (error) {
      if (error instanceof RunEnding) return this.end(error.status, error.message);
      throw error;
    }
  }

  /** The planner call, validated, repaired a bounded number of times [ext], else the single-node plan. */
  private async plan(): Promise<PlanGraph> {
    const maxNodes = nodeBudget(this.run.limits.maxSteps - this.run.state.steps);
    const messages: ChatMessage[] = plannerMessages(this.brief, maxNodes);
    let problem = '';
    for (let attempt = 0; attempt <= this.config.planRepairs; attempt++) {
      const over = this.run.overLimit();
      if (over) throw new RunEnding(over.status as RunEnding['status'], over.message);
      this.run.options.onCheckpoint?.(this.run.checkpoint(null));
      const asked = await this.run.ask({ messages, output: planReply(maxNodes) }, { purpose: attempt === 0 ? 'plan' : 'plan-repair' });
      if ('failure' in asked) {
        if (asked.failure === 'failed') {
          problem = asked.message;
          break;
        }
        throw new RunEnding(asked.failure, asked.message);
      }
      const reading = readPlan(asked.response.content, new Set(), maxNodes);
      if (reading.ok) {
        this.emitPlan(asked.step, reading.graph, attempt);
        return reading.graph;
      }
      problem = reading.error;
      this.run.emit({ type: 'model-repair', step: asked.step, problem: `plan: ${reading.error}` });
      messages.push({ role: 'assistant', content: asked.response.content }, { role: 'user', content: planRepair(reading.error) });
    }
    const fallback = singleNodePlan(this.brief.question, `no usable plan (${problem}): the main question is answered as one node`);
    this.emitPlan(this.run.state.steps, fallback, this.config.planRepairs);
    return fallback;
  }

  /**
   * A node re-run [ext]: the old run's graph and the answers that stay valid; the node and its
   * descendants are stale and run again. Recorded as the analyst's: a review of the plan
   * (edited when the node's question changed or its answer was pinned) with a note naming them.
   */
  private startRerun(seed: RerunSeed): void {
    const { run } = this;
    const { rerun } = seed;
    this.graph = seed.graph;
    for (const answered of seed.answers) this.answers.set(answered.id, { question: answered.question, answer: answered.answer });
    const step = run.state.steps;
    const changed = rerun.question !== undefined || rerun.pinned !== undefined;
    const stale = rerun.stale.length ? `; stale descendants run again: ${rerun.stale.join(', ')}` : '';
    const how = rerun.pinned !== undefined ? ` with its answer pinned to "${rerun.pinned}"` : rerun.question !== undefined ? ' with an edited question' : '';
    run.emit({ type: 'plan', step, steps: this.graph.nodes.map((node) => `${node.id}: ${node.question}`), nodes: planNodes(this.graph) });
    this.emitPlanSummary(step, this.graph, 0, 'analyst');
    run.emit({ type: 'analyst-review', step, node: rerun.node, action: changed ? 'edit' : 'approve', subject: 'plan', original: rerun.previousPlan, edited: changed ? planJson(this.graph) : null, note: `[ext] re-ran ${rerun.node} of run ${rerun.fromRun}${how}${stale}` });
    for (const node of this.graph.nodes) {
      const answered = this.answers.get(node.id);
      if (!answered) continue;
      this.settled.add(node.id);
      const input = { status: 'answered', level: node.level, parents: node.parents, template: node.question, question: answered.question, answer: answered.answer.value, explanation: answered.answer.explanation, reusedFrom: rerun.fromRun, ...(node.pinned !== undefined ? { pinned: true } : {}), latencyMs: 0, calls: [] };
      this.emitTool(step, node.id, planGraphEvents.node, input, `${node.id}: answer kept from run ${rerun.fromRun}: ${answerText(answered.answer)}`);
    }
  }

  /**
   * Step-through [ext: the paper runs its plan unseen]: the plan waits for the analyst, who
   * approves it or sends an edited plan JSON. An edit goes through the planner's checks; a
   * refused one comes back to the analyst with the reason and their text, so nothing is lost.
   */
  private async reviewPlan(graph: PlanGraph): Promise<PlanGraph> {
    const { run } = this;
    const step = run.state.steps;
    const original = planJson(graph);
    let shown = original;
    let problem: string | null = null;
    for (;;) {
      const decision = await run.options.gate.review({ subject: 'plan', step, plan: shown, problem }, run.signal);
      if (decision.action === 'stop') {
        recordReview(run, { step }, 'plan', original, decision);
        throw new RunEnding('stopped', 'The analyst stopped the run at the plan to continue by hand');
      }
      const edited = decision.action === 'edit' ? decision.plan?.trim() : undefined;
      if (!edited || edited === original.trim()) {
        recordReview(run, { step }, 'plan', original, decision.action === 'edit' ? { action: 'approve' } : decision);
        return graph;
      }
      const reading = readEditedPlan(edited, maxPlanNodes);
      if (!reading.ok) {
        shown = edited;
        problem = reading.error;
        continue;
      }
      recordReview(run, { step }, 'plan', original, { action: 'edit', plan: planJson(reading.graph) });
      const reason = `[ext] the analyst edited the plan graph before it ran${reading.graph.warnings.length ? ` (${reading.graph.warnings.join('; ')})` : ''}`;
      run.emit({ type: 'replan', step, previous: graph.nodes.map((node) => `${node.id}: ${node.question}`), steps: reading.graph.nodes.map((node) => `${node.id}: ${node.question}`), nodes: planNodes(reading.graph), reason, author: 'analyst' });
      this.emitPlanSummary(step, reading.graph, 0, 'analyst');
      return reading.graph;
    }
  }

  private emitPlan(step: number, graph: PlanGraph, repairs: number): void {
    this.run.emit({ type: 'plan', step, steps: graph.nodes.map((node) => `${node.id}: ${node.question}`), nodes: planNodes(graph) });
    this.emitPlanSummary(step, graph, repairs, 'model');
  }

  /** The plan's shape as a `plan-dag.plan` event; its nodes let the notebook redraw the graph after the analyst's edit. */
  private emitPlanSummary(step: number, graph: PlanGraph, repairs: number, author: 'model' | 'analyst'): void {
    const levels = levelsOf(graph);
    const summary = {
      final: graph.final,
      depth: depthOf(graph),
      widths: levels.map((level) => level.length),
      warnings: graph.warnings,
      repairs,
      compute: graph.nodes.filter((node) => node.compute).map((node) => node.id),
      pinned: graph.nodes.filter((node) => node.pinned !== undefined).map((node) => node.id),
      nodes: planNodes(graph),
      author,
    };
    this.emitTool(step, undefined, planGraphEvents.plan, summary, `${author === 'analyst' ? 'Plan graph as the analyst edited it' : 'Plan graph'}: ${levels.length} level${levels.length === 1 ? '' : 's'} (widths ${summary.widths.join(', ')}), final ${graph.final}${graph.warnings.length ? `. Warnings: ${graph.warnings.join('; ')}` : ''}`);
  }

  /** Base variant: one query for the main question, its result shared by every node. */
  private async sharedRetrieval(): Promise<string> {
    const asked = await this.run.ask({ messages: queryMessages(this.brief, { id: 'Q0', question: this.brief.question, parents: [], final: false }) }, { purpose: 'shared-query' });
    if ('failure' in asked) {
      if (asked.failure === 'failed') return `No shared result: ${asked.message}`;
      throw new RunEnding(asked.failure, asked.message);
    }
    const ran = await runQuery(this.run.toolContext(), { step: asked.step, query: readQuery(asked.response.content), author: 'model' });
    this.run.applyStateChanges({ ...ran.stateChanges, queries: 1 });
    return ran.text;
  }

  /** Level by level; a level's nodes at once (bounded); blocked nodes never run; re-planning [ext] when asked for. */
  private async traverse(): Promise<RunOutcome> {
    const { run } = this;
    for (;;) {
      let replanned = false;
      for (const level of levelsOf(this.graph)) {
        const waiting = level.filter((node) => !this.answers.has(node.id) && !this.settled.has(node.id));
        if (waiting.length === 0) continue;
        // A pinned node [ext] holds the analyst's answer: it needs no parents' answers and runs nothing.
        const runnable = waiting.filter((node) => node.pinned !== undefined || node.parents.every((parent) => this.answers.has(parent)));
        for (const node of waiting.filter((candidate) => !runnable.includes(candidate))) this.emitBlocked(node);
        if (runnable.length === 0) continue;
        const over = run.overLimit();
        if (over) return this.end(over.status, over.message);
        run.saveTechniqueState(this.saved());
        run.options.onCheckpoint?.(run.checkpoint(null));
        const started = performance.now();
        const settled = await inParallel(runnable, run.options.gate.interactive ? 1 : this.config.concurrency, (node) => this.runOne(node));
        this.levelTimes.push({ level: runnable[0]?.level ?? 0, nodes: runnable.map((node) => node.id), wallMs: performance.now() - started });
        const ending = settled.find((outcome): outcome is { ending: RunEnding } => 'ending' in outcome);
        if (ending) return this.end(ending.ending.status, ending.ending.message);
        const troubled = settled.flatMap((outcome) => ('result' in outcome && (outcome.result.status === 'failed' || outcome.result.empty) ? [outcome.result] : []));
        if (troubled.length > 0 && this.replansUsed < this.config.replans && !this.answers.has(this.graph.final)) {
          replanned = await this.replan(troubled);
          if (replanned) break;
        }
      }
      if (!replanned) break;
    }
    return this.decide();
  }

  private async runOne(node: DagNode): Promise<{ result: NodeResult } | { ending: RunEnding }> {
    const parents = (node.pinned !== undefined ? [] : node.parents).map((id) => {
      const answered = this.answers.get(id) as Answered;
      return { id, question: this.graph.nodes.find((candidate) => candidate.id === id)?.question ?? answered.question, answer: answered.answer };
    });
    try {
      const result = node.pinned !== undefined ? pinnedResult(node, node.id === this.graph.final) : await runNode(this.run, this.brief, { node, final: node.id === this.graph.final, parents, sharedEvidence: this.sharedEvidence }, this.config);
      this.results.push(result);
      this.settled.add(node.id);
      if (result.status === 'answered' && result.answer) this.answers.set(node.id, { question: result.question, answer: result.answer });
      this.emitNode(node, result);
      return { result };
    } catch (error) {
      if (error instanceof RunEnding) return { ending: error };
      throw error;
    }
  }

  /** Re-planning of the remaining graph [ext]: answered nodes stay, the rest is planned again. */
  private async replan(troubled: NodeResult[]): Promise<boolean> {
    this.replansUsed++;
    const done = this.graph.nodes.filter((node) => this.answers.has(node.id));
    const nextLevel = Math.max(0, ...done.map((node) => node.level)) + 1;
    const maxNodes = nodeBudget(this.run.limits.maxSteps - this.run.state.steps - 1);
    const messages = replannerMessages(
      this.brief,
      maxNodes,
      done.map((node) => ({ id: node.id, question: this.answers.get(node.id)?.question ?? node.question, answer: answerText((this.answers.get(node.id) as Answered).answer) })),
      troubled.map((result) => ({ id: result.id, question: result.question, problem: result.failure ? `${result.failure.category}: ${result.failure.message}` : 'the query returned no rows' })),
      nextLevel,
    );
    const over = this.run.overLimit();
    if (over) throw new RunEnding(over.status as RunEnding['status'], over.message);
    const asked = await this.run.ask({ messages, output: planReply(maxNodes) }, { purpose: 'replan' });
    if ('failure' in asked) {
      if (asked.failure === 'failed') return false;
      throw new RunEnding(asked.failure, asked.message);
    }
    const json = extractJson(asked.response.content);
    const proposed = json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as { nodes?: unknown; final?: unknown }) : null;
    const kept = done.map((node) => ({ id: node.id, question: node.question, parents: node.parents }));
    const combined = proposed && Array.isArray(proposed.nodes) ? { ...proposed, nodes: [...kept, ...(proposed.nodes as unknown[])] } : null;
    const checked = combined ? readPlan(JSON.stringify(combined), new Set(done.map((node) => node.id)), maxNodes) : { ok: false as const, error: 'the reply is not a JSON plan' };
    if (!checked.ok) {
      this.run.emit({ type: 'model-repair', step: asked.step, problem: `re-plan: ${checked.error}; the plan is kept` });
      return false;
    }
    const previous = this.graph.nodes.map((node) => `${node.id}: ${node.question}`);
    this.graph = checked.graph;
    this.settled.clear();
    const reason = troubled.map((result) => `${result.id} ${result.failure ? `failed (${result.failure.category})` : 'found no rows'}`).join('; ');
    this.run.emit({ type: 'replan', step: asked.step, previous, steps: this.graph.nodes.map((node) => `${node.id}: ${node.question}`), nodes: planNodes(this.graph), reason: `[ext] re-planned the rest: ${reason}`, author: 'model' });
    return true;
  }

  /** The final node's decision, checked by the simulator like every technique's; or why there is none. */
  private async decide(): Promise<RunOutcome> {
    this.emitSummary();
    const final = this.results.find((result) => result.id === this.graph.final && result.status === 'answered');
    if (!final?.decision) {
      const failed = this.results.filter((result) => result.status === 'failed');
      const why = [
        ...failed.map((result) => `${result.id} failed (${result.failure?.category}: ${result.failure?.message})`),
        ...(this.blocked.length ? [`blocked: ${this.blocked.join(', ')}`] : []),
      ].join('; ');
      return this.run.finish('failed', `Plan*RAG reached no decision: ${why || `the final node ${this.graph.final} did not run`}`);
    }
    const step = final.calls.at(-1)?.step ?? this.run.state.steps;
    const outcome = await answerTool.perform(final.decision, { step, node: final.id }, this.run.toolContext());
    if ('answer' in outcome) return this.run.finish('answered', null, outcome.answer);
    return this.run.finish('failed', 'The decision could not be recorded');
  }

  private end(status: RunOutcome['status'], message: string): RunOutcome {
    this.emitSummary();
    return this.run.finish(status, message);
  }

  private emitNode(node: DagNode, result: NodeResult): void {
    const promptTokens = result.calls.map((call) => call.promptTokens);
    const input = {
      status: result.status,
      level: node.level,
      parents: node.parents,
      template: node.question,
      question: result.question,
      answer: result.answer?.value ?? null,
      explanation: result.answer?.explanation ?? null,
      failure: result.failure,
      empty: result.empty,
      latencyMs: Math.round(result.endedAt - result.startedAt),
      ...(node.pinned !== undefined ? { pinned: true } : {}),
      calls: result.calls,
      largestPromptTokens: Math.max(0, ...promptTokens),
    };
    const text =
      result.status === 'answered'
        ? `${node.id}: ${result.question}\nA${node.id.slice(1)}: ${result.answer ? answerText(result.answer) : ''}`
        : `${node.id} failed (${result.failure?.category}): ${result.failure?.message}`;
    this.emitTool(result.calls.at(-1)?.step ?? this.run.state.steps, node.id, planGraphEvents.node, input, text);
  }

  private emitBlocked(node: DagNode): void {
    this.settled.add(node.id);
    const missing = node.parents.filter((parent) => !this.answers.has(parent));
    const failedAncestors = this.results.filter((result) => result.status === 'failed' && descendantsOf(this.graph, result.id).includes(node.id)).map((result) => result.id);
    const blockedBy = failedAncestors.length ? failedAncestors : missing;
    this.blocked.push(node.id);
    this.emitTool(this.run.state.steps, node.id, planGraphEvents.node, { status: 'blocked', level: node.level, parents: node.parents, template: node.question, blockedBy }, `${node.id} blocked: ${blockedBy.join(', ')} did not answer`);
  }

  /** The run's efficiency figures: prompt tokens per call, the largest prompt, critical-path time against the sequential sum. */
  private emitSummary(): void {
    const calls = this.results.flatMap((result) => result.calls);
    const criticalPathMs = this.levelTimes.reduce((sum, level) => sum + level.wallMs, 0);
    const sequentialMs = this.results.reduce((sum, result) => sum + (result.endedAt - result.startedAt), 0);
    const largest = Math.max(0, ...calls.map((call) => call.promptTokens));
    const input = {
      nodeCalls: calls.length,
      promptTokens: calls.reduce((sum, call) => sum + call.promptTokens, 0),
      largestPromptTokens: largest,
      criticalPathMs: Math.round(criticalPathMs),
      sequentialMs: Math.round(sequentialMs),
      levels: this.levelTimes.map((level) => ({ ...level, wallMs: Math.round(level.wallMs) })),
      failures: this.results.filter((result) => result.failure).map((result) => ({ id: result.id, ...result.failure })),
      blocked: this.blocked,      /** The graph that ran, as plan JSON: what a node re-run [ext] starts from. */
      // Absent when the run ended before it had a plan (stopped or out of budget at the planner).
      graph: (this.graph as PlanGraph | undefined) ? (JSON.parse(planJson(this.graph)) as unknown) : null,
    };
    this.emitTool(this.run.state.steps, undefined, 'plan-dag.summary', input, `Plan*RAG: ${calls.length} node calls, largest prompt ${largest} tokens, node time ${Math.round(criticalPathMs)} ms along the levels against ${Math.round(sequentialMs)} ms one after another`);
  }

  private emitTool(step: number, node: string | undefined, tool: string, input: unknown, output: string): void {
    const event: RunEvent = { type: 'tool', step, tool, input, output, ...(node ? { node } : {}) };
    this.run.emit(event);
  }

  private saved(): SavedState {
    return {
      graph: this.graph,
      answers: [...this.answers].map(([id, answered]) => ({ id, question: answered.question, answer: { value: answered.answer.value, explanation: answered.answer.explanation } })),
      replans: this.replansUsed,
      shared: this.sharedEvidence,
    };
  }
}

/**
 * The most nodes a plan may have so that the run's model calls can answer them all: one
 * planner call (and up to two repairs) before, and a node costs at least two calls (its query
 * and its answer). The planner is told the number and a bigger plan is refused.
 */
function nodeBudget(stepsLeft: number): number {
  return Math.max(1, Math.min(maxPlanNodes, Math.floor((stepsLeft - 1) / 2)));
}

function planNodes(graph: PlanGraph): { id: string; text: string; dependsOn: string[] }[] {
  return graph.nodes.map((node) => ({ id: node.id, text: node.question, dependsOn: node.parents }));
}

/** A pinned node's outcome [ext]: the analyst's value is its answer (and, for the final node, the decision); no call is made. */
function pinnedResult(node: DagNode, final: boolean): NodeResult {
  const now = performance.now();
  const value = node.pinned ?? '';
  const explanation = 'pinned by the analyst';
  return {
    id: node.id,
    status: 'answered',
    question: node.question,
    answer: { value, explanation },
    decision: final ? { decision: value, rationale: 'The analyst pinned the final node\'s answer.' } : null,
    failure: null,
    empty: false,
    calls: [],
    startedAt: now,
    endedAt: now,
  };
}

/** Runs `work` on every item, at most `limit` at a time, and returns the outcomes in item order. */
export async function inParallel<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const outcomes: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      outcomes[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return outcomes;
}

/** The registered variants: the default (per-node query, strict tags) and the paper's and our alternatives. */
export const planDagVariants: TechniqueDefinition[] = [
  planDagTechnique({ id: 'plan-dag', label: 'Plan*RAG', summary: 'A DAG of atomic sub-questions, run level by level in parallel; each node writes one query and sees only its parents\' answers. Tags filled deterministically [ext]; plan validated and repaired [ext].' }),
  planDagTechnique({ id: 'plan-dag-faithful', label: 'Plan*RAG (LLM tag rewrite)', summary: 'Plan*RAG with the paper\'s LLM rewrite of every templated sub-question.', substitution: 'faithful' }),
  planDagTechnique({ id: 'plan-dag-base', label: 'Plan*RAG-Base (shared retrieval)', summary: 'Plan*RAG where every node reads one query result retrieved once for the main question (the paper\'s Base).', retrieval: 'shared' }),
  planDagTechnique({ id: 'plan-dag-react', label: 'Plan*-IterRAG (ReAct per node)', summary: 'Plan*RAG with a ReAct loop of at most 3 queries inside each node.', retrieval: 'react' }),
  planDagTechnique({ id: 'plan-dag-replan', label: 'Plan*RAG with re-planning [ext]', summary: 'Plan*RAG that re-plans the remaining graph once when a node fails or finds no rows [ext].', replans: 1 }),
];
