import { chainPlan, planNodeSchema, type Cell, type PlanNode } from '../../src-main/contract';
import { planGraphEvents, readPlanNodeOutcome, type PlanNodeOutcome } from '../../src-main/contract/plan-graph';

/** What the notebook knows about a plan's nodes: the cells of the same run, filed by node. */
export interface PlanRunCells {
  /** The technique reports node states (a Plan*RAG run wrote a `plan-dag.plan` observation). */
  tracked: boolean;
  outcomes: Map<string, PlanNodeOutcome>;
  /** Query cells by the node they worked on, in notebook order. */
  queries: Map<string, Cell[]>;
  /** What the analyst decided at a node's review points (edits, skips, notes; a plain approval leaves no cell), by node. */
  reviews: Map<string, NodeReview[]>;
  /** The plan as the analyst edited it in step-through, when they did: the graph that ran. */
  editedPlan: PlanNode[] | null;
}

export interface NodeReview {
  action: string;
  /** What was reviewed: the node's query, or the plan (a node re-run [ext]); absent in notebooks written before it was recorded. */
  subject: string | null;
}

/** Files the run's cells by node; a later `plan-dag.node` cell for a node (after a re-plan) replaces an earlier one. */
export function planRunCells(cells: readonly Cell[], runId: string | undefined): PlanRunCells {
  const outcomes = new Map<string, PlanNodeOutcome>();
  const queries = new Map<string, Cell[]>();
  const reviews = new Map<string, NodeReview[]>();
  let tracked = false;
  let editedPlan: PlanNode[] | null = null;
  if (!runId) return { tracked, outcomes, queries, reviews, editedPlan };
  for (const cell of cells) {
    if (cell.provenance.runId !== runId) continue;
    const node = cell.provenance.node;
    if (cell.kind === 'observation' && cell.data.tool === planGraphEvents.plan) {
      tracked = true;
      editedPlan = analystPlan(cell.data['input']) ?? editedPlan;
    }
    if (cell.kind === 'observation' && cell.data.tool === planGraphEvents.node && node) {
      const outcome = readPlanNodeOutcome(cell.data['input']);
      if (outcome) outcomes.set(node, outcome);
    }
    if (cell.kind === 'query' && node) queries.set(node, [...(queries.get(node) ?? []), cell]);
    if (cell.kind === 'note' && cell.author === 'analyst' && node && typeof cell.data.review === 'string') {
      const subject = typeof cell.data['subject'] === 'string' ? cell.data['subject'] : null;
      reviews.set(node, [...(reviews.get(node) ?? []), { action: cell.data.review, subject }]);
    }
  }
  return { tracked, outcomes, queries, reviews, editedPlan };
}

/** The nodes of a `plan-dag.plan` event the analyst's edit produced; null for the model's plan or an unreadable input. */
function analystPlan(input: unknown): PlanNode[] | null {
  if (typeof input !== 'object' || input === null || (input as { author?: unknown }).author !== 'analyst') return null;
  const nodes = planNodeSchema.array().safeParse((input as { nodes?: unknown }).nodes);
  return nodes.success ? nodes.data : null;
}

/** The plan's nodes from its cell; a plan saved with steps only (PlanRAG, older notebooks) reads as a chain. */
export function planNodesOfCell(data: { steps?: string[] | undefined; nodes?: PlanNode[] | undefined }): PlanNode[] {
  if (data.nodes && data.nodes.length > 0) return data.nodes;
  return chainPlan(data.steps ?? []);
}

const reviewVerbs: Record<string, string> = { approve: 'approved', edit: 'edited', skip: 'skipped', note: 'added a note to', stop: 'stopped the run at' };

/** One review of a node as its detail names it, e.g. "edited the query". */
export function nodeReviewText(review: NodeReview): string {
  const verb = reviewVerbs[review.action] ?? review.action;
  return `${verb} the ${review.subject === 'plan' ? 'node in the plan' : review.subject === 'query' ? 'query' : 'node'}`;
}

/** The analyst skipped a query of the node: it answered without that result. */
export function skippedQuery(reviews: readonly NodeReview[]): boolean {
  return reviews.some((review) => review.action === 'skip' && review.subject === 'query');
}
