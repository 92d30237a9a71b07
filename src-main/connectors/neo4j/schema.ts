import type { SchemaInfo } from '../../contract/data';
import { quoteCypherName, toCount, type GraphElement, type GraphReader } from '../shared/graph-schema';

interface VirtualRelationship {
  type: string;
  startNodeElementId: string;
  endNodeElementId: string;
}

/** `[':`Person`']` or `':`TRADES`'` → `Person`, `TRADES`. */
function unquoteTypeName(value: string): string {
  return value.replace(/^:/, '').replace(/^`(.*)`$/, '$1').replace(/``/g, '`');
}

function propertyList(entries: { name: string; types: string[] }[]): { name: string; type: string }[] {
  const byName = new Map<string, Set<string>>();
  for (const entry of entries) {
    const types = byName.get(entry.name) ?? new Set<string>();
    for (const type of entry.types) types.add(type);
    byName.set(entry.name, types);
  }
  return [...byName].map(([name, types]) => ({ name, type: [...types].join(' | ') }));
}

/**
 * Labels and relationship types with their property keys and types (db.schema.*TypeProperties),
 * counts (answered from Neo4j's count store, so cheap) and, for relationship types, the label
 * pairs they connect (db.schema.visualization).
 */
export async function readNeo4jSchema(read: GraphReader): Promise<SchemaInfo> {
  const labelNames = (await read('CALL db.labels() YIELD label RETURN label')).map((row) => String(row.label));
  const typeNames = (await read('CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType')).map((row) => String(row.relationshipType));

  const nodeProperties = new Map<string, { name: string; types: string[] }[]>();
  for (const row of await read('CALL db.schema.nodeTypeProperties() YIELD nodeLabels, propertyName, propertyTypes RETURN nodeLabels, propertyName, propertyTypes')) {
    if (row.propertyName === null) continue;
    for (const label of (row.nodeLabels as string[] | null) ?? []) {
      const list = nodeProperties.get(label) ?? [];
      list.push({ name: String(row.propertyName), types: (row.propertyTypes as string[] | null) ?? [] });
      nodeProperties.set(label, list);
    }
  }
  const relationshipProperties = new Map<string, { name: string; types: string[] }[]>();
  for (const row of await read('CALL db.schema.relTypeProperties() YIELD relType, propertyName, propertyTypes RETURN relType, propertyName, propertyTypes')) {
    if (row.propertyName === null) continue;
    const type = unquoteTypeName(String(row.relType));
    const list = relationshipProperties.get(type) ?? [];
    list.push({ name: String(row.propertyName), types: (row.propertyTypes as string[] | null) ?? [] });
    relationshipProperties.set(type, list);
  }

  // Virtual nodes and relationships: Cypher cannot read their labels, the driver objects can.
  const endpoints = new Map<string, Set<string>>();
  const [visualization] = await read('CALL db.schema.visualization() YIELD nodes, relationships RETURN nodes, relationships');
  const labelsById = new Map<string, string>();
  for (const node of (visualization?.nodes as { elementId: string; labels: string[] }[] | undefined) ?? []) {
    labelsById.set(node.elementId, node.labels.join(':'));
  }
  for (const relationship of (visualization?.relationships as VirtualRelationship[] | undefined) ?? []) {
    const set = endpoints.get(relationship.type) ?? new Set<string>();
    set.add(`${labelsById.get(relationship.startNodeElementId) ?? '?'}->${labelsById.get(relationship.endNodeElementId) ?? '?'}`);
    endpoints.set(relationship.type, set);
  }

  const labels: GraphElement[] = [];
  for (const name of labelNames) {
    const [row] = await read(`MATCH (n:${quoteCypherName(name)}) RETURN count(n) AS count`);
    labels.push({ name, properties: propertyList(nodeProperties.get(name) ?? []), count: toCount(row?.count) });
  }
  const relationshipTypes: GraphElement[] = [];
  for (const name of typeNames) {
    const [row] = await read(`MATCH ()-[r:${quoteCypherName(name)}]->() RETURN count(r) AS count`);
    relationshipTypes.push({
      name,
      properties: propertyList(relationshipProperties.get(name) ?? []),
      count: toCount(row?.count),
      endpoints: [...(endpoints.get(name) ?? [])],
    });
  }
  return { kind: 'graph', labels, relationshipTypes };
}
