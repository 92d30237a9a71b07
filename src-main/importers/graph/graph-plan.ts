import type { GraphDump } from '../../dqa/cypher-dump';
import { IMPORT_ORDER_COLUMN } from '../../dqa/connector-sql-load';
import type { DumpValue } from '../../dqa/sql-dump';
import { WorkbenchError } from '../../contract/errors';
import type { DumpSource } from '../dump-files';
import type { CreatedPart } from '../import-outcome';

/**
 * A graph dump made ready for a graph engine that keeps types per property. Every node and
 * relationship gets its position in the dump, `import_order` (0-based, over all nodes and over
 * all relationships, as the Kùzu importer of src-main/dqa numbers them): neither Neo4j nor
 * Kùzu returns relationships in creation order, and the connector loaders order by it.
 */
export const orderProperty = IMPORT_ORDER_COLUMN;
/** The label of the node recording an import (digest and what it created). */
export const recordLabel = '_DwbImport';

export type PropertyType = 'INTEGER' | 'FLOAT' | 'BOOLEAN' | 'STRING';
export type GraphValue = string | number | boolean;
/** Values by property name; a property a node lacks (or holds null) is absent. */
export type PropertyValues = Record<string, GraphValue>;

export interface PlannedNode {
  label: string;
  order: number;
  values: PropertyValues;
}

export interface PlannedRelationship {
  type: string;
  order: number;
  /** Node positions (`import_order`) of the endpoints. */
  from: number;
  to: number;
  values: PropertyValues;
}

export interface GraphPlan {
  nodes: PlannedNode[];
  relationships: PlannedRelationship[];
  /** Counts by label and relationship type, in order of first appearance. */
  parts: CreatedPart[];
  /** Property types by label and by relationship type. */
  nodeTypes: Map<string, Map<string, PropertyType>>;
  relationshipTypes: Map<string, Map<string, PropertyType>>;
}

/**
 * One type per property: all booleans BOOLEAN, all whole numbers INTEGER, numbers with any
 * fraction FLOAT, anything else (text, or a mix) STRING. A parsed dump no longer knows whether
 * `0` was written `0` or `0.0`, so a `0` among `0.25`s becomes the float 0, as Kùzu types it.
 */
function typeOf(values: GraphValue[]): PropertyType {
  if (values.length > 0 && values.every((value) => typeof value === 'boolean')) return 'BOOLEAN';
  if (values.length > 0 && values.every((value) => typeof value === 'number')) return values.every((value) => Number.isSafeInteger(value)) ? 'INTEGER' : 'FLOAT';
  return 'STRING';
}

/** Types per property of each group (label or relationship type). */
function typesByGroup(elements: { group: string; properties: Record<string, DumpValue> }[], source: string): Map<string, Map<string, PropertyType>> {
  const values = new Map<string, Map<string, GraphValue[]>>();
  for (const { group, properties } of elements) {
    const byName = values.get(group) ?? new Map<string, GraphValue[]>();
    for (const [name, value] of Object.entries(properties)) {
      if (name.toLowerCase() === orderProperty) throw new WorkbenchError('invalid-request', `${source}: ${group} has a property ${name}, which the import uses for the dump order`);
      const list = byName.get(name) ?? [];
      if (value !== null) list.push(value);
      byName.set(name, list);
    }
    values.set(group, byName);
  }
  return new Map([...values].map(([group, byName]) => [group, new Map([...byName].map(([name, list]) => [name, typeOf(list)]))]));
}

function convert(properties: Record<string, DumpValue>, types: Map<string, PropertyType> | undefined): PropertyValues {
  const converted: PropertyValues = {};
  for (const [name, value] of Object.entries(properties)) {
    if (value === null) continue;
    converted[name] = types?.get(name) === 'STRING' ? String(value) : value;
  }
  return converted;
}

function countBy<T>(items: T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

export function planGraph(graph: GraphDump, source: string): GraphPlan {
  const labelOf = graph.nodes.map((node, index) => {
    const [label] = node.labels;
    if (node.labels.length !== 1 || label === undefined) {
      throw new WorkbenchError('invalid-request', `${source}: node #${index + 1} has ${node.labels.length === 0 ? 'no label' : `labels ${node.labels.join(':')}`}; one label per node is supported`);
    }
    if (label === recordLabel) throw new WorkbenchError('invalid-request', `${source}: the label ${recordLabel} is kept for the import record`);
    return label;
  });
  const nodeTypes = typesByGroup(graph.nodes.map((node, index) => ({ group: labelOf[index] as string, properties: node.properties })), source);
  const relationshipTypes = typesByGroup(graph.relationships.map((relationship) => ({ group: relationship.type, properties: relationship.properties })), source);
  const nodes = graph.nodes.map((node, order) => ({ label: labelOf[order] as string, order, values: convert(node.properties, nodeTypes.get(labelOf[order] as string)) }));
  const relationships = graph.relationships.map((relationship, order) => ({
    type: relationship.type,
    order,
    from: relationship.from,
    to: relationship.to,
    values: convert(relationship.properties, relationshipTypes.get(relationship.type)),
  }));
  const parts: CreatedPart[] = [
    ...[...countBy(nodes, (node) => node.label)].map(([name, count]): CreatedPart => ({ kind: 'label', name, count })),
    ...[...countBy(relationships, (relationship) => relationship.type)].map(([name, count]): CreatedPart => ({ kind: 'relationship', name, count })),
  ];
  return { nodes, relationships, parts, nodeTypes, relationshipTypes };
}

/** The import record as a node: the dump's name, digest and what the import created. */
export function recordProperties(dump: DumpSource, parts: CreatedPart[]): { dump: string; sha256: string; parts: string } {
  return { dump: dump.name, sha256: dump.sha256, parts: JSON.stringify(parts) };
}
