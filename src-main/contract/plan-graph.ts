import dagre from '@dagrejs/dagre';
import type { PlanNode } from './run';

/**
 * A plan drawn as a graph: the same model for the notebook's plan-graph cell and the reports'
 * SVG, so both show the same levels, critical path and node states. Pure (dagre is plain JS),
 * shared with the renderer.
 */

/**
 * The tool events by which a technique reports a plan graph as it runs: the graph once drawn
 * (`plan`), then each node's outcome (`node`, with a PlanNodeOutcome as input). The notebook's
 * plan-graph cell and every report draw node states from these alone, so any technique that
 * emits them gets the graph. The names are Plan*RAG's, which first wrote them: older logs and
 * sealed reports read the same.
 */
export const planGraphEvents = { plan: 'plan-dag.plan', node: 'plan-dag.node' } as const;

/** A node's state in a run: `step` is a node of a plan whose technique reports no per-node state (PlanRAG's list). */
export type PlanNodeStatus = 'pending' | 'running' | 'answered' | 'failed' | 'blocked' | 'step';

/** What a `planGraphEvents.node` event says about one node (its `input`), read loosely: logs of other versions may differ. */
export interface PlanNodeOutcome {
  status: 'answered' | 'failed' | 'blocked';
  question: string | null;
  answer: string | null;
  explanation: string | null;
  failure: string | null;
  blockedBy: string[];
  latencyMs: number | null;
  promptTokens: number;
  completionTokens: number;
  /** The analyst pinned this answer [ext]: the node did not run. */
  pinned: boolean;
  /** In a node re-run [ext]: the earlier run whose answer this node kept. */
  reusedFrom: string | null;
}

export interface PlanGraphNode extends PlanNode {
  level: number;
  status: PlanNodeStatus;
  critical: boolean;
  outcome: PlanNodeOutcome | null;
  /** Top-left corner and size from the layout. */
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PlanGraphEdge {
  from: string;
  to: string;
  critical: boolean;
  /** The layout's route, from the parent's border to the child's. */
  points: { x: number; y: number }[];
}

export interface PlanGraphLayout {
  nodes: PlanGraphNode[];
  edges: PlanGraphEdge[];
  /** Node ids per level, level 0 first: a level's width is how many nodes can run at once. */
  levels: string[][];
  criticalPath: string[];
  width: number;
  height: number;
}

export interface PlanGraphOptions {
  /** Outcomes by node id (from `plan-dag.node` events); none for a technique that reports none. */
  outcomes?: ReadonlyMap<string, PlanNodeOutcome>;
  /** The technique reports per-node state (a Plan*RAG run): nodes without an outcome are pending or running. */
  tracked?: boolean;
  /** The run is still going: a pending node whose parents have all answered is running. */
  live?: boolean;
  direction?: 'LR' | 'TB';
  nodeWidth?: number;
  nodeHeight?: number;
}

/** Reads a `planGraphEvents.node` event's input; null when it is not one this version understands. */
export function readPlanNodeOutcome(input: unknown): PlanNodeOutcome | null {
  if (!isRecord(input)) return null;
  const status = input['status'];
  if (status !== 'answered' && status !== 'failed' && status !== 'blocked') return null;
  const calls = Array.isArray(input['calls']) ? input['calls'].filter(isRecord) : [];
  const failure = isRecord(input['failure']) ? `${String(input['failure']['category'] ?? '')}: ${String(input['failure']['message'] ?? '')}` : null;
  return {
    status,
    question: typeof input['question'] === 'string' ? input['question'] : null,
    answer: answerText(input['answer']),
    explanation: typeof input['explanation'] === 'string' ? input['explanation'] : null,
    failure,
    blockedBy: Array.isArray(input['blockedBy']) ? input['blockedBy'].map(String) : [],
    latencyMs: typeof input['latencyMs'] === 'number' ? input['latencyMs'] : null,
    promptTokens: calls.reduce((sum, call) => sum + numberOr0(call['promptTokens']), 0),
    completionTokens: calls.reduce((sum, call) => sum + numberOr0(call['completionTokens']), 0),
    pinned: input['pinned'] === true,
    reusedFrom: typeof input['reusedFrom'] === 'string' ? input['reusedFrom'] : null,
  };
}

/**
 * Each node's level: 0 for a node with no parents, else one more than its deepest parent.
 * Parents that are not in the plan are ignored, and a cycle (a malformed log) is cut where it
 * closes, so any list of nodes gets levels.
 */
export function planLevels(nodes: readonly PlanNode[]): Map<string, number> {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const levels = new Map<string, number>();
  const visiting = new Set<string>();
  const levelOf = (id: string): number => {
    const known = levels.get(id);
    if (known !== undefined) return known;
    if (visiting.has(id)) return -1;
    visiting.add(id);
    const parents = (byId.get(id)?.dependsOn ?? []).filter((parent) => byId.has(parent));
    const level = parents.length === 0 ? 0 : Math.max(...parents.map(levelOf)) + 1;
    visiting.delete(id);
    levels.set(id, Math.max(0, level));
    return Math.max(0, level);
  };
  for (const node of nodes) levelOf(node.id);
  return levels;
}

/**
 * The heaviest path from a root to a sink, by `weight` per node (a node's latency when known,
 * else 1, so an unrun plan's critical path is its longest chain). Ties go to the node listed first.
 */
export function criticalPath(nodes: readonly PlanNode[], weight: (id: string) => number): string[] {
  const levels = planLevels(nodes);
  const ids = new Set(nodes.map((node) => node.id));
  const ordered = [...nodes].sort((a, b) => (levels.get(a.id) ?? 0) - (levels.get(b.id) ?? 0));
  const best = new Map<string, { total: number; via: string | null }>();
  for (const node of ordered) {
    let via: string | null = null;
    let before = 0;
    for (const parent of node.dependsOn) {
      const reached = ids.has(parent) && (levels.get(parent) ?? 0) < (levels.get(node.id) ?? 0) ? best.get(parent) : undefined;
      if (reached && (via === null || reached.total > before)) {
        via = parent;
        before = reached.total;
      }
    }
    best.set(node.id, { total: before + Math.max(0, weight(node.id)), via });
  }
  let end: string | null = null;
  let endTotal = -1;
  for (const node of nodes) {
    const total = best.get(node.id)?.total ?? 0;
    if (total > endTotal) {
      end = node.id;
      endTotal = total;
    }
  }
  const path: string[] = [];
  for (let at = end; at !== null; at = best.get(at)?.via ?? null) path.unshift(at);
  return path;
}

/** A node's state: its outcome if it has one; else pending, or running while the run is live and its parents have answered. */
export function planNodeStatus(node: PlanNode, options: PlanGraphOptions): PlanNodeStatus {
  const outcome = options.outcomes?.get(node.id);
  if (outcome) return outcome.status;
  if (!options.tracked) return 'step';
  const parentsAnswered = node.dependsOn.every((parent) => options.outcomes?.get(parent)?.status === 'answered');
  return options.live && parentsAnswered ? 'running' : 'pending';
}

/** Levels, critical path, states and an automatic layered layout (dagre) of a plan. */
export function layoutPlanGraph(planNodes: readonly PlanNode[], options: PlanGraphOptions = {}): PlanGraphLayout {
  const nodes = uniqueNodes(planNodes);
  const ids = new Set(nodes.map((node) => node.id));
  const levels = planLevels(nodes);
  const weight = (id: string): number => options.outcomes?.get(id)?.latencyMs ?? 1;
  const critical = criticalPath(nodes, weight);
  const onPath = new Set(critical);
  const criticalEdges = new Set(critical.slice(1).map((id, index) => `${critical[index]}→${id}`));
  const width = options.nodeWidth ?? 220;
  const height = options.nodeHeight ?? 72;

  const graph = new dagre.graphlib.Graph();
  graph.setGraph({ rankdir: options.direction ?? 'LR', nodesep: 24, ranksep: 56, marginx: 12, marginy: 12 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const node of nodes) graph.setNode(node.id, { width, height });
  const edges = nodes.flatMap((node) => node.dependsOn.filter((parent) => ids.has(parent) && parent !== node.id).map((parent) => ({ from: parent, to: node.id })));
  for (const edge of edges) graph.setEdge(edge.from, edge.to);
  // A level's nodes in plan order (Q1.1 above Q1.2), where crossings allow: dagre would otherwise reverse them.
  const constraints = nodes.flatMap((node, index) => {
    const next = nodes.slice(index + 1).find((candidate) => levels.get(candidate.id) === levels.get(node.id));
    return next ? [{ left: node.id, right: next.id }] : [];
  });
  dagre.layout(graph, { constraints });

  const laidOut = nodes.map((node): PlanGraphNode => {
    const box = graph.node(node.id);
    return {
      ...node,
      level: levels.get(node.id) ?? 0,
      status: planNodeStatus(node, options),
      critical: onPath.has(node.id),
      outcome: options.outcomes?.get(node.id) ?? null,
      x: box.x - width / 2,
      y: box.y - height / 2,
      width,
      height,
    };
  });
  const byLevel: string[][] = [];
  for (const node of laidOut) (byLevel[node.level] ??= []).push(node.id);
  const size = graph.graph();
  return {
    nodes: laidOut,
    edges: edges.map((edge) => ({ ...edge, critical: criticalEdges.has(`${edge.from}→${edge.to}`), points: edgePoints(graph.edge(edge.from, edge.to)) })),
    levels: byLevel.map((level) => level ?? []),
    criticalPath: critical,
    width: Math.ceil(size.width ?? width),
    height: Math.ceil(size.height ?? height),
  };
}

/** A malformed log may repeat an id; the first one wins so the layout and the keys stay unique. */
function uniqueNodes(nodes: readonly PlanNode[]): PlanNode[] {
  const seen = new Set<string>();
  return nodes.filter((node) => !seen.has(node.id) && seen.add(node.id));
}

function edgePoints(label: unknown): { x: number; y: number }[] {
  const points = isRecord(label) && Array.isArray(label['points']) ? label['points'] : [];
  return points.filter(isRecord).map((point) => ({ x: numberOr0(point['x']), y: numberOr0(point['y']) }));
}

/** A node's answer as text: a list of plain values joined with commas (as the technique fills tags), anything else as JSON. */
function answerText(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((item) => typeof item === 'string' || typeof item === 'number')) return value.join(', ');
  return JSON.stringify(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function numberOr0(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
