import { replaceTags } from '../../src-main/contract/plan-dag-plan';

/**
 * A plan JSON being edited in step-through, read loosely so the form can work on a plan that
 * does not validate yet (a cycle, a missing parent): any object with a list of nodes that have
 * an id and a question. Keys the form does not know are kept as they are.
 */
export interface DraftNode {
  id: string;
  question: string;
  parents?: string[] | undefined;
  compute?: boolean | undefined;
  pinned?: string | undefined;
  [key: string]: unknown;
}

export interface DraftPlan {
  nodes: DraftNode[];
  final?: string | undefined;
  [key: string]: unknown;
}

/** The draft in `text`, or null when the text is no JSON object with such nodes (then only the JSON editor can fix it). */
export function parseDraft(text: string): DraftPlan | null {
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch {
    return null;
  }
  if (!isRecord(json) || !Array.isArray(json['nodes'])) return null;
  const nodes = json['nodes'];
  if (!nodes.every((node) => isRecord(node) && typeof node['id'] === 'string' && typeof node['question'] === 'string')) return null;
  if (json['final'] !== undefined && typeof json['final'] !== 'string') return null;
  return json as DraftPlan;
}

/** Changes one node; a field set to undefined is dropped from the JSON. */
export function updateNode(plan: DraftPlan, index: number, change: Partial<DraftNode>): DraftPlan {
  return { ...plan, nodes: plan.nodes.map((node, at) => (at === index ? withoutUndefined({ ...node, ...change }) : node)) };
}

/** Removes a node and every edge to it; removing the final node leaves the choice to the validation (the one sink, or an aggregation step). */
export function removeNode(plan: DraftPlan, index: number): DraftPlan {
  const removed = plan.nodes[index];
  if (!removed) return plan;
  const nodes = plan.nodes.filter((_node, at) => at !== index).map((node) => (node.parents?.includes(removed.id) ? { ...node, parents: node.parents.filter((id) => id !== removed.id) } : node));
  return withoutUndefined({ ...plan, nodes, final: plan.final === removed.id ? undefined : plan.final });
}

/** Adds a root node with the next free id of level 1; the analyst gives it parents and a question. */
export function addNode(plan: DraftPlan): DraftPlan {
  const ids = new Set(plan.nodes.map((node) => node.id));
  let j = 1;
  while (ids.has(`Q1.${j}`)) j++;
  return { ...plan, nodes: [...plan.nodes, { id: `Q1.${j}`, question: 'New sub-question', parents: [] }] };
}

export function setFinal(plan: DraftPlan, id: string): DraftPlan {
  return { ...plan, final: id };
}

function withoutUndefined<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The draft with the ids the validation relabelled (`renamed`: old → new, levels recomputed from
 * the edges) renamed everywhere it names them: node ids, parents, the final node and the answer
 * tags in questions. The editor applies it after each edit, so the form and the JSON say the ids
 * the graph shows and the run will use.
 */
export function relabelDraft(plan: DraftPlan, renamed: Readonly<Record<string, string>>): DraftPlan {
  const to = (id: string): string => renamed[id] ?? id;
  const nodes = plan.nodes.map((node) =>
    withoutUndefined({
      ...node,
      id: to(node.id),
      question: replaceTags(node.question, (id, bracketed) => (bracketed ? `<A${to(id).slice(1)}>` : `A${to(id).slice(1)}`)),
      parents: node.parents?.map(to),
    }),
  );
  return withoutUndefined({ ...plan, nodes, final: plan.final === undefined ? undefined : to(plan.final) });
}
