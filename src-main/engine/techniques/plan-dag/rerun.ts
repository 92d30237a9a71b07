import { z } from 'zod';
import { WorkbenchError } from '../../../contract/errors';
import { planGraphEvents } from '../../../contract/plan-graph';
import type { RunEvent } from '../../../contract/run';
import { descendantsOf, planJson, readEditedPlan, type PlanGraph } from './plan-graph';

/**
 * Re-running one node of a finished Plan*RAG run [ext: the paper has no re-run]: a new run
 * starts from the old run's graph and answers, minus the node and its descendants (stale),
 * with the node's question edited or its answer pinned if the analyst says so. Only the stale
 * nodes run again; the final node decides again and the simulator checks it again.
 */
export interface NodeRerun {
  fromRun: string;
  node: string;
  /** A new question (template) for the node; its tags may cite other parents. */
  question?: string | undefined;
  /** The analyst's answer for the node: it is not run, its descendants read this. */
  pinned?: string | undefined;
}

/** What the technique starts from (`run.options.seed`). */
export const rerunSeedSchema = z.object({
  kind: z.literal('plan-dag-rerun'),
  graph: z.object({
    nodes: z.array(z.object({ id: z.string(), question: z.string(), parents: z.array(z.string()), level: z.number(), compute: z.boolean(), pinned: z.string().optional() })),
    final: z.string(),
    warnings: z.array(z.string()),
  }),
  answers: z.array(z.object({ id: z.string(), question: z.string(), answer: z.object({ value: z.unknown(), explanation: z.string() }) })),
  rerun: z.object({ fromRun: z.string(), node: z.string(), stale: z.array(z.string()), previousPlan: z.string(), question: z.string().optional(), pinned: z.string().optional() }),
});
export type RerunSeed = z.infer<typeof rerunSeedSchema>;

const summaryInputSchema = z.object({ graph: z.object({ nodes: z.array(z.record(z.string(), z.unknown())), final: z.string() }) }).passthrough();
const nodeInputSchema = z.object({ status: z.string(), question: z.string().nullable().optional(), answer: z.unknown(), explanation: z.string().nullable().optional() }).passthrough();

/** The seed of a re-run from the old run's events; a clear error when the run or the node cannot be re-run. */
export function rerunSeed(events: readonly RunEvent[], rerun: NodeRerun): RerunSeed {
  const summary = events.findLast((event) => event.type === 'tool' && event.tool === 'plan-dag.summary');
  const read = summary?.type === 'tool' ? summaryInputSchema.safeParse(summary.input) : null;
  if (!read?.success) throw new WorkbenchError('invalid-request', `Run ${rerun.fromRun} is not a finished Plan*RAG run with a plan graph, so it has no node to re-run`);
  const previous = readEditedPlan(JSON.stringify(read.data.graph));
  if (!previous.ok) throw new WorkbenchError('invalid-request', `The plan of run ${rerun.fromRun} cannot be read again: ${previous.error}`);
  const node = previous.graph.nodes.find((candidate) => candidate.id === rerun.node);
  if (!node) throw new WorkbenchError('invalid-request', `Run ${rerun.fromRun} has no node ${rerun.node}`);

  const question = rerun.question?.trim();
  const pinned = rerun.pinned?.trim();
  const edited = {
    ...JSON.parse(planJson(previous.graph)),
    nodes: previous.graph.nodes.map((candidate) => {
      if (candidate.id !== rerun.node) return planNode(candidate);
      const { pinned: _unpinned, ...rest } = planNode(candidate);
      return { ...rest, ...(question ? { question } : {}), ...(pinned ? { pinned } : {}) };
    }),
  } as unknown;
  const reading = readEditedPlan(JSON.stringify(edited));
  if (!reading.ok) throw new WorkbenchError('invalid-request', `The edited node ${rerun.node} makes the plan invalid: ${reading.error}`);
  const graph: PlanGraph = reading.graph;

  const stale = descendantsOf(graph, rerun.node);
  // The decision is always made again, even when the node feeds a branch the final node does not read.
  if (rerun.node !== graph.final && !stale.includes(graph.final)) stale.push(graph.final);
  const rerunning = new Set([rerun.node, ...stale]);
  const answers = events.flatMap((event) => {
    if (event.type !== 'tool' || event.tool !== planGraphEvents.node || !event.node || rerunning.has(event.node)) return [];
    const input = nodeInputSchema.safeParse(event.input);
    if (!input.success || input.data.status !== 'answered') return [];
    return [{ id: event.node, question: input.data.question ?? '', answer: { value: input.data.answer, explanation: input.data.explanation ?? '' } }];
  });
  // A node answered twice (a re-plan) counts with its last answer.
  const latest = [...new Map(answers.map((answer) => [answer.id, answer])).values()].filter((answer) => graph.nodes.some((candidate) => candidate.id === answer.id));
  return {
    kind: 'plan-dag-rerun',
    graph,
    answers: latest,
    rerun: { fromRun: rerun.fromRun, node: rerun.node, stale, previousPlan: planJson(previous.graph), ...(question ? { question } : {}), ...(pinned ? { pinned } : {}) },
  };
}

function planNode(node: PlanGraph['nodes'][number]): Record<string, unknown> {
  return { id: node.id, question: node.question, parents: node.parents, ...(node.compute ? { compute: true } : {}), ...(node.pinned !== undefined ? { pinned: node.pinned } : {}) };
}
