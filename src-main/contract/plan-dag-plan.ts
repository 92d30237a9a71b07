import { z } from 'zod';

/**
 * The plan of Plan*RAG (arXiv 2410.20753 v2, §4.2): a DAG of atomic sub-questions with ids
 * `Q{level}.{j}` whose questions cite their parents' answers as `A{level}.{j}` tags (bare or
 * `<A1.1>`). Everything here is pure: reading the planner's JSON, validating it [ext: the paper
 * does not validate], computing levels from the edges, and the single-node fallback.
 */
export interface DagNode {
  id: string;
  /** The template: may cite parents' answers as tags. */
  question: string;
  /** Explicit parents and cited tags, united; ids of this graph. */
  parents: string[];
  /** 1 for roots, else 1 + the highest parent level (computed, never taken from the id). */
  level: number;
  /** Answered from the parents' answers alone, with no query (the v1 "Critic" said no retrieval). */
  compute: boolean;
  /** The analyst's hand-written answer [ext]: the node is not run, its children read this value. */
  pinned?: string;
}

export interface PlanGraph {
  /** In execution order: by level, then by position within the level. */
  nodes: DagNode[];
  /** The node whose answer decides. */
  final: string;
  /** What was changed to make the plan runnable (relabels, an aggregation step added). */
  warnings: string[];
  /** Old id → new id, when levels recomputed from the edges relabelled nodes (the editor renames them in the draft too). */
  renamed?: Record<string, string>;
}

export type PlanReading = { ok: true; graph: PlanGraph } | { ok: false; error: string };

/** At most this many nodes: an atomic plan of a DQA question needs far fewer. */
export const maxPlanNodes = 24;

const idPattern = /^Q(\d+)\.(\d+)$/;
/** `<A1.1>` or a bare `A1.1` (not inside a longer word or number). */
const tagPattern = /<A(\d+\.\d+)>|(?<![\w.])A(\d+\.\d+)(?![\w]|\.\d)/g;

const rawNodeSchema = z.object({
  id: z.string().trim().min(1),
  question: z.string().trim().min(1),
  parents: z.array(z.string().trim().min(1)).optional(),
  depends_on: z.array(z.string().trim().min(1)).optional(),
  compute: z.boolean().optional(),
  pinned: z.string().trim().min(1, 'a pinned answer must not be empty').optional(),
});
const rawPlanSchema = z.object({
  nodes: z.array(rawNodeSchema),
  final: z.string().trim().min(1).optional(),
  final_node: z.string().trim().min(1).optional(),
});
type RawPlan = z.infer<typeof rawPlanSchema>;

/** The node ids a question cites through its answer tags, in order of first mention. */
export function citedIds(question: string): string[] {
  const ids: string[] = [];
  for (const match of question.matchAll(tagPattern)) {
    const id = `Q${match[1] ?? match[2]}`;
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** Replaces every tag of `question` by what `replace` says for its node id (bare and bracketed forms alike). */
export function replaceTags(question: string, replace: (id: string, bracketed: boolean) => string): string {
  return question.replace(tagPattern, (_match, bracketed: string | undefined, bare: string | undefined) =>
    replace(`Q${bracketed ?? bare}`, bracketed !== undefined),
  );
}

/** The JSON object of a reply: the whole text, a fenced block, or the outermost braces. */
export function extractJson(text: string): unknown {
  const attempts = [text.trim()];
  const fenced = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(text);
  if (fenced?.[1]) attempts.push(fenced[1].trim());
  const start = text.search(/[[{]/);
  const end = Math.max(text.lastIndexOf('}'), text.lastIndexOf(']'));
  if (start >= 0 && end > start) attempts.push(text.slice(start, end + 1));
  for (const attempt of attempts) {
    try {
      return JSON.parse(attempt) as unknown;
    } catch {
      // try the next form
    }
  }
  return undefined;
}

/**
 * Reads and validates the planner's reply. Errors are sentences the planner can act on in a
 * repair turn (they are shown to it verbatim): unique ids of the form Q{level}.{j}, parents and
 * tags that name nodes of the plan, no self-reference, no cycle, at most one final node.
 */
export function readPlan(reply: string, fixed: ReadonlySet<string> = new Set(), maxNodes = maxPlanNodes): PlanReading {
  const json = extractJson(reply);
  if (json === undefined) return { ok: false, error: 'the reply is not JSON; reply with one JSON object {"nodes": [...], "final": "Q…"}' };
  const shaped = rawPlanSchema.safeParse(Array.isArray(json) ? { nodes: json } : json);
  if (!shaped.success) {
    const issue = shaped.error.issues[0];
    return { ok: false, error: `the plan does not have the required form: ${issue ? `${issue.path.join('.') || 'plan'} ${issue.message}` : 'unknown'}` };
  }
  return validatePlan(shaped.data, fixed, maxNodes);
}

/**
 * Reads a plan the analyst edited [ext]: strict JSON (the planner's reply is read leniently,
 * an editor's text is not), then the planner's own checks, with the same sentences.
 */
export function readEditedPlan(text: string, maxNodes = maxPlanNodes): PlanReading {
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch (error) {
    return { ok: false, error: `the plan is not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  const shaped = rawPlanSchema.safeParse(json);
  if (!shaped.success) {
    const issue = shaped.error.issues[0];
    return { ok: false, error: `the plan does not have the required form: ${issue ? `${issue.path.join('.') || 'plan'}: ${issue.message}` : 'unknown'}` };
  }
  return validatePlan(shaped.data, new Set(), maxNodes);
}

/**
 * Validates a plan. `fixed` names nodes that keep their ids whatever their level (the answered
 * nodes a re-plan [ext] builds on).
 */
export function validatePlan(plan: RawPlan, fixed: ReadonlySet<string> = new Set(), maxNodes = maxPlanNodes): PlanReading {
  if (plan.nodes.length === 0) return { ok: false, error: 'the plan has no nodes' };
  const fresh = plan.nodes.filter((node) => !fixed.has(node.id)).length;
  if (fresh > maxNodes) return { ok: false, error: `the plan has ${fresh} nodes; at most ${maxNodes} are allowed` };
  const ids = new Set<string>();
  for (const node of plan.nodes) {
    if (!idPattern.test(node.id)) return { ok: false, error: `node id "${node.id}" is not of the form Q{level}.{j}, e.g. Q1.1` };
    if (ids.has(node.id)) return { ok: false, error: `node id ${node.id} is used twice` };
    ids.add(node.id);
  }
  const edges = new Map<string, string[]>();
  for (const node of plan.nodes) {
    const cited = citedIds(node.question);
    for (const id of cited) {
      if (id === node.id) return { ok: false, error: `${node.id} cites its own answer A${id.slice(1)}` };
      if (!ids.has(id)) return { ok: false, error: `${node.id} cites A${id.slice(1)}, but the plan has no node ${id}` };
    }
    const explicit = node.parents ?? node.depends_on ?? [];
    for (const id of explicit) {
      if (id === node.id) return { ok: false, error: `${node.id} lists itself as its parent` };
      if (!ids.has(id)) return { ok: false, error: `${node.id} lists parent ${id}, but the plan has no node ${id}` };
    }
    edges.set(node.id, [...new Set([...explicit, ...cited])]);
  }
  const cycle = findCycle(plan.nodes.map((node) => node.id), edges);
  if (cycle) return { ok: false, error: `the plan has a cycle: ${cycle.join(' → ')}` };

  const levels = computeLevels(plan.nodes.map((node) => node.id), edges);
  const warnings: string[] = [];
  const children = new Set([...edges.values()].flat());
  const sinks = plan.nodes.map((node) => node.id).filter((id) => !children.has(id));
  const named = plan.final ?? plan.final_node;
  let final: string;
  let aggregation: { id: string; question: string; parents: string[] } | null = null;
  if (named !== undefined) {
    if (!ids.has(named)) return { ok: false, error: `the final node ${named} is not in the plan` };
    if (children.has(named)) return { ok: false, error: `the final node ${named} has children; the final node must come last` };
    final = named;
    const unused = sinks.filter((id) => id !== named);
    if (unused.length > 0) warnings.push(`${unused.join(', ')} ${unused.length === 1 ? 'feeds' : 'feed'} neither another node nor the final node ${named}`);
  } else if (sinks.length === 1) {
    final = sinks[0] as string;
  } else {
    // Several sinks and no final node: an aggregation step over them decides (the v1 "Aggregator").
    const level = Math.max(...sinks.map((id) => levels.get(id) ?? 1)) + 1;
    aggregation = { id: `Q${level}.1`, question: `Decide the main question from ${sinks.map((id) => `<A${id.slice(1)}>`).join(', ')}.`, parents: sinks };
    final = aggregation.id;
    warnings.push(`several nodes end the plan (${sinks.join(', ')}) and none is named final: aggregation step ${aggregation.id} added`);
  }

  const nodes: DagNode[] = plan.nodes.map((node) => ({
    id: node.id,
    question: node.question,
    parents: edges.get(node.id) ?? [],
    level: levels.get(node.id) ?? 1,
    compute: node.compute ?? false,
    ...(node.pinned !== undefined ? { pinned: node.pinned } : {}),
  }));
  if (aggregation) nodes.push({ ...aggregation, level: 1 + Math.max(...aggregation.parents.map((id) => levels.get(id) ?? 1)), compute: true });
  return { ok: true, graph: relabel(nodes, final, warnings, fixed) };
}

/** A graph as the plan JSON the planner writes (and the analyst edits): ids, questions, parents, the final node. */
export function planJson(graph: PlanGraph): string {
  const nodes = graph.nodes.map((node) => ({
    id: node.id,
    question: node.question,
    parents: node.parents,
    ...(node.compute ? { compute: true } : {}),
    ...(node.pinned !== undefined ? { pinned: node.pinned } : {}),
  }));
  return JSON.stringify({ nodes, final: graph.final }, null, 2);
}

/** The plan of last resort: one node asking the main question (the paper's depth-0 plan). */
export function singleNodePlan(question: string, warning: string): PlanGraph {
  return { nodes: [{ id: 'Q1.1', question: question.trim(), parents: [], level: 1, compute: false }], final: 'Q1.1', warnings: [warning] };
}

/** The nodes of each level, level 1 first. */
export function levelsOf(graph: PlanGraph): DagNode[][] {
  const byLevel: DagNode[][] = [];
  for (const node of graph.nodes) (byLevel[node.level - 1] ??= []).push(node);
  return byLevel.filter((level) => level.length > 0);
}

/** Depth as the paper's Table 1 counts it: edges on the longest path (a single node is depth 0). */
export function depthOf(graph: PlanGraph): number {
  return Math.max(...graph.nodes.map((node) => node.level)) - 1;
}

/** Every node that depends on `id`, directly or not. */
export function descendantsOf(graph: PlanGraph, id: string): string[] {
  const found: string[] = [];
  const visit = (parent: string): void => {
    for (const node of graph.nodes) {
      if (node.parents.includes(parent) && !found.includes(node.id)) {
        found.push(node.id);
        visit(node.id);
      }
    }
  };
  visit(id);
  return found;
}

function findCycle(ids: string[], edges: Map<string, string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] | null => {
    if (state.get(id) === 'done') return null;
    if (state.get(id) === 'open') return [...path.slice(path.indexOf(id)), id];
    state.set(id, 'open');
    path.push(id);
    for (const parent of edges.get(id) ?? []) {
      const cycle = visit(parent);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(id, 'done');
    return null;
  };
  for (const id of ids) {
    const cycle = visit(id);
    if (cycle) return cycle.reverse();
  }
  return null;
}

function computeLevels(ids: string[], edges: Map<string, string[]>): Map<string, number> {
  const levels = new Map<string, number>();
  const level = (id: string): number => {
    const known = levels.get(id);
    if (known !== undefined) return known;
    const parents = edges.get(id) ?? [];
    const value = parents.length === 0 ? 1 : 1 + Math.max(...parents.map(level));
    levels.set(id, value);
    return value;
  };
  ids.forEach(level);
  return levels;
}

/**
 * Execution follows the computed levels; an id that says another level is renamed
 * Q{level}.{j} (the next j free at its level) and every tag, parent and the final id follow,
 * with a warning. Ids that agree with their level, and `fixed` ones, stay.
 */
function relabel(nodes: DagNode[], final: string, warnings: string[], fixed: ReadonlySet<string>): PlanGraph {
  const ordered = [...nodes].sort((a, b) => a.level - b.level);
  const levelOfId = (id: string): number => Number(idPattern.exec(id)?.[1] ?? 0);
  const kept = new Set(ordered.filter((node) => fixed.has(node.id) || levelOfId(node.id) === node.level).map((node) => node.id));
  const renamed = new Map<string, string>();
  for (const node of ordered) {
    if (kept.has(node.id)) continue;
    let j = 1;
    while (kept.has(`Q${node.level}.${j}`) || [...renamed.values()].includes(`Q${node.level}.${j}`)) j++;
    renamed.set(node.id, `Q${node.level}.${j}`);
  }
  if (renamed.size === 0) return { nodes: ordered, final, warnings };
  warnings.push(`levels recomputed from the edges; relabelled ${[...renamed].map(([from, to]) => `${from} → ${to}`).join(', ')}`);
  const to = (id: string): string => renamed.get(id) ?? id;
  return {
    nodes: ordered.map((node) => ({
      ...node,
      id: to(node.id),
      question: replaceTags(node.question, (id, bracketed) => (bracketed ? `<A${to(id).slice(1)}>` : `A${to(id).slice(1)}`)),
      parents: node.parents.map(to),
    })),
    final: to(final),
    warnings,
    renamed: Object.fromEntries(renamed),
  };
}
