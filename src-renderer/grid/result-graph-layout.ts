import dagre from '@dagrejs/dagre';
import type { GraphNode, GraphRelationship, ResultGraph } from '../../src-main/contract';

/** What the graph view draws at most: beyond this a layout and the DOM slow the notebook down. */
export const graphCaps = { nodes: 300, relationships: 600 } as const;

export const graphNodeSize = { width: 132, height: 38 } as const;

export interface PlacedNode {
  node: GraphNode;
  x: number;
  y: number;
}

export interface GraphLayout {
  nodes: PlacedNode[];
  relationships: GraphRelationship[];
  /** How many the result holds, so the view can say "showing N of M" when the cap cut some. */
  totalNodes: number;
  totalRelationships: number;
}

/**
 * The drawn part of a graph and where each node goes. The first nodes up to the cap are kept (a
 * result's order is the query's), then the relationships between kept nodes up to theirs; dagre
 * lays the connected ones out left to right, the rest go in a grid, so no two nodes overlap and
 * the layout is the same on every render.
 */
export function layoutResultGraph(graph: ResultGraph): GraphLayout {
  const kept = graph.nodes.slice(0, graphCaps.nodes);
  const keptIds = new Set(kept.map((node) => node.id));
  const between = graph.relationships.filter((relationship) => keptIds.has(relationship.start) && keptIds.has(relationship.end));
  const relationships = between.slice(0, graphCaps.relationships);

  // dagre lays out the connected nodes; it would stack every unconnected one in a single column, so those go in a grid below.
  const connected = new Set(relationships.flatMap((relationship) => [relationship.start, relationship.end]));
  const placed = new Map<string, { x: number; y: number }>();
  let bottom = 0;
  if (connected.size > 0) {
    const layout = new dagre.graphlib.Graph({ multigraph: true });
    layout.setGraph({ rankdir: 'LR', nodesep: 14, ranksep: 70, marginx: 10, marginy: 10 });
    layout.setDefaultEdgeLabel(() => ({}));
    for (const node of kept) if (connected.has(node.id)) layout.setNode(node.id, { width: graphNodeSize.width, height: graphNodeSize.height });
    for (const relationship of relationships) {
      if (relationship.start !== relationship.end) layout.setEdge(relationship.start, relationship.end, {}, relationship.id);
    }
    dagre.layout(layout);
    for (const id of connected) {
      const box = layout.node(id);
      placed.set(id, { x: box.x - graphNodeSize.width / 2, y: box.y - graphNodeSize.height / 2 });
    }
    bottom = (layout.graph().height ?? 0) + 20;
  }
  const alone = kept.filter((node) => !connected.has(node.id));
  const columns = Math.max(1, Math.round(Math.sqrt(alone.length * 2)));
  alone.forEach((node, index) => {
    placed.set(node.id, { x: 10 + (index % columns) * (graphNodeSize.width + 14), y: bottom + 10 + Math.floor(index / columns) * (graphNodeSize.height + 14) });
  });

  return {
    nodes: kept.map((node) => ({ node, ...(placed.get(node.id) ?? { x: 0, y: 0 }) })),
    relationships,
    totalNodes: graph.nodes.length,
    totalRelationships: graph.relationships.length,
  };
}

/** Properties that usually name a node, tried in this order when the analyst chose none. */
const namingProperties = ['name', 'title', 'caption', 'label', 'code', 'id'];

function shownValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A node's caption: the chosen property where the node has it, else a naming property, else its label. */
export function nodeCaption(node: GraphNode, chosen: string | undefined): string {
  if (chosen && node.properties[chosen] !== undefined && node.properties[chosen] !== null) return shownValue(node.properties[chosen]);
  for (const key of namingProperties) {
    const value = node.properties[key];
    if (value !== undefined && value !== null) return shownValue(value);
  }
  return node.labels[0] ?? node.id;
}

/** Every property name the nodes carry, sorted: the caption choices. */
export function nodePropertyNames(graph: ResultGraph): string[] {
  return [...new Set(graph.nodes.flatMap((node) => Object.keys(node.properties)))].sort();
}

/** How many colours the stylesheets define per theme (`.graph-colour-N`). */
export const graphColourCount = 8;

/** Each label's colour index, by the labels' sorted order: stable from render to render. */
export function labelColours(graph: ResultGraph): Map<string, number> {
  const labels = [...new Set(graph.nodes.map((node) => node.labels[0] ?? ''))].sort();
  return new Map(labels.map((label, index) => [label, index % graphColourCount]));
}
