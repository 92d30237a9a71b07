import neo4j, { type Driver, type ManagedTransaction } from 'neo4j-driver';
import { parseCypherDump } from '../../dqa/cypher-dump';
import { dumpProperty } from '../../dqa/dump-tag';
import type { DumpFile, DumpSource } from '../dump-files';
import type { DumpWriter } from '../dump-writer';
import type { CreatedPart, ImportRecord } from '../import-outcome';
import { parseParts } from '../import-outcome';
import { batches } from '../relational/table-plan';
import { orderProperty, planGraph, recordLabel, recordProperties, type PropertyType, type PropertyValues } from './graph-plan';


export interface Neo4jTarget {
  url: string;
  username?: string;
  password?: string;
  database?: string;
}

function quote(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}

/** Properties as Neo4j stores them: INTEGER as Cypher integers (JS numbers travel as floats), plus the bookkeeping. */
function toNeo4j(values: PropertyValues, types: Map<string, PropertyType> | undefined, order: number, dump: string): Record<string, unknown> {
  const converted: Record<string, unknown> = { [dumpProperty]: dump, [orderProperty]: neo4j.int(order) };
  for (const [name, value] of Object.entries(values)) {
    converted[name] = types?.get(name) === 'INTEGER' && typeof value === 'number' ? neo4j.int(value) : value;
  }
  return converted;
}

/**
 * `neo4j://…` or `bolt://…`: every dump into the one database, each node and relationship
 * tagged with `_dump` and `import_order`. A (re-)import deletes the dump's earlier elements and
 * writes the new ones in one transaction, so it is all or nothing. Relationships are attached
 * by the element ids of the nodes just created: no index or constraint is added.
 */
export class Neo4jWriter implements DumpWriter {
  private readonly driver: Driver;

  constructor(private readonly target: Neo4jTarget) {
    const auth = target.username !== undefined ? neo4j.auth.basic(target.username, target.password ?? '') : undefined;
    this.driver = neo4j.driver(target.url, auth, { connectionTimeout: 10_000, userAgent: 'decision-workbench dqa import' });
  }

  location(dump: DumpFile): string {
    return `${this.target.url}${this.target.database !== undefined ? `/${this.target.database}` : ''} {${dumpProperty}: '${dump.name}'}`;
  }

  async findRecord(dump: DumpFile): Promise<ImportRecord | null> {
    const result = await this.driver.executeQuery(
      `MATCH (m:${quote(recordLabel)} {${dumpProperty}: $dump}) RETURN m.sha256 AS sha256, m.parts AS parts LIMIT 1`,
      { dump: dump.name },
      { database: this.target.database, routing: neo4j.routing.READ },
    );
    const [record] = result.records;
    const sha256: unknown = record?.get('sha256');
    return typeof sha256 === 'string' ? { sha256, parts: parseParts(record?.get('parts')) } : null;
  }

  async write(dump: DumpSource): Promise<CreatedPart[]> {
    const plan = planGraph(parseCypherDump(dump.text, dump.path), dump.path);
    const session = this.driver.session({ database: this.target.database, defaultAccessMode: neo4j.session.WRITE });
    try {
      await session.executeWrite(async (transaction) => {
        await transaction.run(`MATCH (n) WHERE n.${dumpProperty} = $dump DETACH DELETE n`, { dump: dump.name });
        const ids: string[] = [];
        for (const label of new Set(plan.nodes.map((node) => node.label))) {
          const nodes = plan.nodes.filter((node) => node.label === label);
          const created = await createNodes(transaction, label, nodes.map((node) => toNeo4j(node.values, plan.nodeTypes.get(label), node.order, dump.name)));
          nodes.forEach((node, index) => {
            ids[node.order] = created[index] as string;
          });
        }
        for (const type of new Set(plan.relationships.map((relationship) => relationship.type))) {
          const rows = plan.relationships
            .filter((relationship) => relationship.type === type)
            .map((relationship) => ({
              from: ids[relationship.from],
              to: ids[relationship.to],
              properties: toNeo4j(relationship.values, plan.relationshipTypes.get(type), relationship.order, dump.name),
            }));
          for (const batch of batches(rows, 1, 5000)) {
            await transaction.run(
              `UNWIND $rows AS row MATCH (a) WHERE elementId(a) = row.from MATCH (b) WHERE elementId(b) = row.to
               CREATE (a)-[r:${quote(type)}]->(b) SET r = row.properties`,
              { rows: batch },
            );
          }
        }
        await createNodes(transaction, recordLabel, [{ ...recordProperties(dump, plan.parts), [dumpProperty]: dump.name }]);
      });
    } finally {
      await session.close();
    }
    return plan.parts;
  }

  async close(): Promise<void> {
    await this.driver.close();
  }
}

/** Creates nodes in order and returns their element ids in the same order. */
async function createNodes(transaction: ManagedTransaction, label: string, rows: Record<string, unknown>[]): Promise<string[]> {
  const ids: string[] = [];
  for (const batch of batches(rows, 1, 5000)) {
    const result = await transaction.run(`UNWIND $rows AS row CREATE (n:${quote(label)}) SET n = row RETURN elementId(n) AS id`, { rows: batch });
    for (const record of result.records) ids.push(String(record.get('id')));
  }
  return ids;
}
