import { describe, expect, it } from 'vitest';

import type { GraphNode, GraphRelationship, ResultGraph } from '../../../src-main/contract';
import { graphCaps, graphNodeSize, labelColours, layoutResultGraph, nodeCaption } from '../../../src-renderer/grid/result-graph-layout';

function node(id: string, label: string, properties: Record<string, unknown> = {}): GraphNode {
  return { id, labels: [label], properties };
}

function chain(count: number): ResultGraph {
  const nodes = Array.from({ length: count }, (_, index) => node(`n${index}`, index % 2 ? 'Port' : 'City'));
  const relationships: GraphRelationship[] = nodes.slice(1).flatMap((to, index) => [
    { id: `r${index}a`, type: 'ROAD', start: `n${index}`, end: to.id, properties: {} },
    { id: `r${index}b`, type: 'RAIL', start: to.id, end: `n${index}`, properties: {} },
    { id: `r${index}c`, type: 'SEA', start: `n${index}`, end: to.id, properties: {} },
  ]);
  return { nodes, relationships };
}

describe('layoutResultGraph', () => {
  it('draws a small graph whole, no two nodes overlapping', () => {
    const layout = layoutResultGraph(chain(12));
    expect(layout.nodes).toHaveLength(12);
    expect(layout.relationships).toHaveLength(33);
    expect(layout.totalNodes).toBe(12);
    for (const [index, a] of layout.nodes.entries()) {
      for (const b of layout.nodes.slice(index + 1)) {
        const apart = Math.abs(a.x - b.x) >= graphNodeSize.width || Math.abs(a.y - b.y) >= graphNodeSize.height;
        expect(apart, `${a.node.id} and ${b.node.id} overlap`).toBe(true);
      }
    }
  });

  it('keeps the first nodes up to the cap and only relationships between kept nodes, up to theirs', () => {
    const layout = layoutResultGraph(chain(graphCaps.nodes + 50));
    expect(layout.nodes).toHaveLength(graphCaps.nodes);
    expect(layout.nodes[0]?.node.id).toBe('n0');
    expect(layout.totalNodes).toBe(graphCaps.nodes + 50);
    expect(layout.relationships).toHaveLength(graphCaps.relationships);
    const kept = new Set(layout.nodes.map((placed) => placed.node.id));
    expect(layout.relationships.every((relationship) => kept.has(relationship.start) && kept.has(relationship.end))).toBe(true);
  });
});

describe('nodeCaption', () => {
  it('uses the chosen property where the node has it, else a naming property, else the label', () => {
    const city = node('1', 'City', { name: 'Lisbon', code: 'LIS' });
    expect(nodeCaption(city, 'code')).toBe('LIS');
    expect(nodeCaption(city, 'missing')).toBe('Lisbon');
    expect(nodeCaption(city, undefined)).toBe('Lisbon');
    expect(nodeCaption(node('2', 'Port', { depth: 14 }), undefined)).toBe('Port');
    expect(nodeCaption(node('3', 'Port', { depth: 14 }), 'depth')).toBe('14');
  });
});

describe('labelColours', () => {
  it('gives each label its own colour, by sorted label', () => {
    const colours = labelColours({ nodes: [node('1', 'Port'), node('2', 'City'), node('3', 'Port')], relationships: [] });
    expect([...colours]).toEqual([
      ['City', 0],
      ['Port', 1],
    ]);
  });
});

describe('layoutResultGraph without relationships', () => {
  it('puts unconnected nodes in a grid wider than one column, none overlapping', () => {
    const nodes = Array.from({ length: 50 }, (_, index) => node(`s${index}`, 'Stop'));
    const layout = layoutResultGraph({ nodes, relationships: [] });
    const xs = new Set(layout.nodes.map((placed) => placed.x));
    const ys = new Set(layout.nodes.map((placed) => placed.y));
    expect(xs.size).toBeGreaterThan(5);
    expect(ys.size).toBeLessThan(xs.size);
    const cells = new Set(layout.nodes.map((placed) => `${placed.x},${placed.y}`));
    expect(cells.size).toBe(50);
  });

  it('puts unconnected nodes below the connected ones', () => {
    const graph = chain(4);
    graph.nodes.push(node('alone', 'Stop'));
    const layout = layoutResultGraph(graph);
    const alone = layout.nodes.find((placed) => placed.node.id === 'alone');
    const lowestConnected = Math.max(...layout.nodes.filter((placed) => placed.node.id !== 'alone').map((placed) => placed.y + graphNodeSize.height));
    expect(alone?.y).toBeGreaterThan(lowestConnected);
  });
});
