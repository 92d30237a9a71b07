import type { SchemaInfo } from '../../contract/data';
import { quoteCypherName, toCount, type GraphElement, type GraphReader } from '../shared/graph-schema';

function quoteString(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * Node tables become labels and relationship tables relationship types (LadybugDB's schema is
 * declared, so properties and endpoints are exact), with exact counts.
 */
export async function readLadybugSchema(read: GraphReader): Promise<SchemaInfo> {
  const tables = await read('CALL show_tables() RETURN name, type');
  const labels: GraphElement[] = [];
  const relationshipTypes: GraphElement[] = [];
  for (const table of tables) {
    const name = String(table.name);
    const info = await read(`CALL table_info(${quoteString(name)}) RETURN *`);
    const properties = info.map((row) => ({ name: String(row.name), type: String(row.type) }));
    if (table.type === 'NODE') {
      const [row] = await read(`MATCH (n:${quoteCypherName(name)}) RETURN count(n) AS count`);
      labels.push({ name, properties, count: toCount(row?.count) });
    } else if (table.type === 'REL') {
      const [row] = await read(`MATCH ()-[r:${quoteCypherName(name)}]->() RETURN count(r) AS count`);
      const connections = await read(`CALL show_connection(${quoteString(name)}) RETURN *`);
      const endpoints = connections.map((connection) => `${String(connection['source table name'])}->${String(connection['destination table name'])}`);
      relationshipTypes.push({ name, properties, count: toCount(row?.count), endpoints });
    }
  }
  return { kind: 'graph', labels, relationshipTypes };
}
