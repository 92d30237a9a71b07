import { z } from 'zod';

import type { QueryResult } from './data';

/**
 * The nodes and relationships a Cypher result holds, read from the cells the Neo4j and Kùzu
 * connectors write. A column is read as graph elements only when the connector typed it so
 * (`Node`, `Relationship`, `Path` from Neo4j; `NODE`, `REL`, `RECURSIVE_REL` from Kùzu), and a
 * cell only when its JSON has that element's shape: nothing is guessed from text that merely
 * looks like a node.
 */
export type GraphProperties = Record<string, unknown>;
export interface GraphNode {
  id: string;
  labels: string[];
  properties: GraphProperties;
}
export interface GraphRelationship {
  id: string;
  type: string;
  start: string;
  end: string;
  properties: GraphProperties;
}
export interface ResultGraph {
  nodes: GraphNode[];
  relationships: GraphRelationship[];
}

const propertiesSchema = z.record(z.string(), z.unknown());
/** Neo4j: `{elementId, labels, properties}`; Kùzu: `{id, label, properties}` (see the connectors' cell-values.ts). */
const neo4jNodeSchema = z.object({ elementId: z.string(), labels: z.array(z.string()), properties: propertiesSchema });
const kuzuNodeSchema = z.object({ id: z.string(), label: z.string(), properties: propertiesSchema });
const neo4jRelationshipSchema = z.object({ elementId: z.string(), type: z.string(), start: z.string(), end: z.string(), properties: propertiesSchema });
const kuzuRelationshipSchema = z.object({ id: z.string(), type: z.string(), start: z.string(), end: z.string(), properties: propertiesSchema });
const pathSchema = z.object({ nodes: z.array(z.unknown()), relationships: z.array(z.unknown()) });

type ColumnRole = 'node' | 'relationship' | 'path';
const columnRoles: Record<string, ColumnRole> = {
  Node: 'node',
  Relationship: 'relationship',
  Path: 'path',
  NODE: 'node',
  REL: 'relationship',
  RECURSIVE_REL: 'path',
};

/**
 * Properties without the null ones: a graph stores no null property (Neo4j drops them), and Kùzu
 * gives a node matched without a label every table's columns, null where its own table has none.
 */
function present(properties: GraphProperties): GraphProperties {
  return Object.fromEntries(Object.entries(properties).filter(([, value]) => value !== null));
}

function readNode(json: unknown): GraphNode | null {
  const neo4j = neo4jNodeSchema.safeParse(json);
  if (neo4j.success) return { id: neo4j.data.elementId, labels: neo4j.data.labels, properties: present(neo4j.data.properties) };
  const kuzu = kuzuNodeSchema.safeParse(json);
  if (kuzu.success) return { id: kuzu.data.id, labels: [kuzu.data.label], properties: present(kuzu.data.properties) };
  return null;
}

function readRelationship(json: unknown): GraphRelationship | null {
  const neo4j = neo4jRelationshipSchema.safeParse(json);
  if (neo4j.success) {
    const { elementId, type, start, end, properties } = neo4j.data;
    return { id: elementId, type, start, end, properties: present(properties) };
  }
  const kuzu = kuzuRelationshipSchema.safeParse(json);
  return kuzu.success ? { ...kuzu.data, properties: present(kuzu.data.properties) } : null;
}

function parseCell(value: unknown): unknown {
  if (typeof value !== 'string' || !value.startsWith('{')) return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}

/** Collects elements by id, so a node returned on many rows is drawn once. */
class GraphCollector {
  readonly nodes = new Map<string, GraphNode>();
  readonly relationships = new Map<string, GraphRelationship>();

  addNode(node: GraphNode | null): void {
    if (node && !this.nodes.has(node.id)) this.nodes.set(node.id, node);
  }

  addRelationship(relationship: GraphRelationship | null): void {
    if (relationship && !this.relationships.has(relationship.id)) this.relationships.set(relationship.id, relationship);
  }

  addCell(role: ColumnRole, json: unknown): void {
    if (role === 'node') this.addNode(readNode(json));
    else if (role === 'relationship') this.addRelationship(readRelationship(json));
    else {
      const path = pathSchema.safeParse(json);
      if (!path.success) return;
      for (const node of path.data.nodes) this.addNode(readNode(node));
      for (const relationship of path.data.relationships) this.addRelationship(readRelationship(relationship));
    }
  }

  graph(): ResultGraph {
    return { nodes: [...this.nodes.values()], relationships: [...this.relationships.values()] };
  }
}

/** The graph in one or more results (a cell's own and its expansions), or null when none holds a node. */
export function graphOfResults(results: Pick<QueryResult, 'columns' | 'rows'>[]): ResultGraph | null {
  const collector = new GraphCollector();
  for (const result of results) {
    const roles = result.columns.map((column) => columnRoles[column.type]);
    for (const row of result.rows) {
      row.forEach((value, index) => {
        const role = roles[index];
        if (role === undefined) return;
        const json = parseCell(value);
        if (json !== undefined) collector.addCell(role, json);
      });
    }
  }
  const graph = collector.graph();
  return graph.nodes.length === 0 ? null : graph;
}

/** Whether a result has any column the connector typed as graph elements (the graph view is offered then). */
export function hasGraphColumns(result: Pick<QueryResult, 'columns'>): boolean {
  return result.columns.some((column) => columnRoles[column.type] !== undefined);
}

/** A Cypher string literal: quotes and backslashes escaped, so an id from the data cannot end the literal. */
function cypherString(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** How many neighbours one expansion asks for: enough to explore, few enough to stay readable. */
export const expandNeighboursLimit = 50;

/**
 * The read-only query that returns a node's neighbours, as the analyst will see it in a new cell:
 * Neo4j finds the node by `elementId`, Kùzu by its internal id (`table:offset`, as the connector writes it).
 */
export function expandNeighboursQuery(engine: 'neo4j' | 'kuzu', nodeId: string): string | null {
  if (engine === 'neo4j') {
    return `MATCH (n)-[r]-(m)\nWHERE elementId(n) = ${cypherString(nodeId)}\nRETURN n, r, m\nLIMIT ${expandNeighboursLimit}`;
  }
  const internal = /^(\d+):(\d+)$/.exec(nodeId);
  if (!internal) return null;
  return `MATCH (n)-[r]-(m)\nWHERE id(n) = internal_id(${internal[1]}, ${internal[2]})\nRETURN n, r, m\nLIMIT ${expandNeighboursLimit}`;
}
