/**
 * The tiny trade-node dataset every engine is loaded with: five trading nodes and eight trades
 * between them. Relational engines get two tables (nodes, trades with foreign keys to nodes);
 * graph engines get :Node nodes and :TRADES relationships carrying the trade's columns.
 */
export interface TradeNode {
  id: number;
  name: string;
  region: string;
}

export interface Trade {
  id: number;
  sellerId: number;
  buyerId: number;
  qty: number;
  price: number;
  tradedOn: string;
}

export const tradeNodes: TradeNode[] = [
  { id: 1, name: 'Rotterdam', region: 'north' },
  { id: 2, name: 'Hamburg', region: 'north' },
  { id: 3, name: 'Genoa', region: 'south' },
  { id: 4, name: 'Marseille', region: 'south' },
  { id: 5, name: 'Gdansk', region: 'east' },
];

export const trades: Trade[] = [
  { id: 1, sellerId: 1, buyerId: 2, qty: 10, price: 12.5, tradedOn: '2024-01-02' },
  { id: 2, sellerId: 1, buyerId: 3, qty: 4, price: 13.25, tradedOn: '2024-01-03' },
  { id: 3, sellerId: 2, buyerId: 5, qty: 7, price: 11.75, tradedOn: '2024-01-05' },
  { id: 4, sellerId: 3, buyerId: 4, qty: 2, price: 14, tradedOn: '2024-01-08' },
  { id: 5, sellerId: 4, buyerId: 1, qty: 9, price: 12, tradedOn: '2024-01-09' },
  { id: 6, sellerId: 5, buyerId: 2, qty: 3, price: 10.5, tradedOn: '2024-01-12' },
  { id: 7, sellerId: 2, buyerId: 4, qty: 6, price: 13, tradedOn: '2024-01-15' },
  { id: 8, sellerId: 3, buyerId: 1, qty: 5, price: 12.75, tradedOn: '2024-01-20' },
];

/** Names of nodes in a region, ordered by id: the expected answer of the parameter test. */
export function nodeNamesIn(region: string): string[] {
  return tradeNodes.filter((node) => node.region === region).map((node) => node.name);
}

/** SQL statements creating and loading the dataset; `decimal` and `date` vary slightly by engine. */
export function relationalFixtureSql(types: { decimal: string; date: string; text: string }): string[] {
  return [
    `CREATE TABLE nodes (id INTEGER PRIMARY KEY, name ${types.text} NOT NULL, region ${types.text})`,
    `CREATE TABLE trades (
       id INTEGER PRIMARY KEY,
       seller_id INTEGER NOT NULL REFERENCES nodes (id),
       buyer_id INTEGER NOT NULL REFERENCES nodes (id),
       qty INTEGER NOT NULL,
       price ${types.decimal} NOT NULL,
       traded_on ${types.date} NOT NULL)`,
    `INSERT INTO nodes (id, name, region) VALUES ${tradeNodes.map((n) => `(${n.id}, '${n.name}', '${n.region}')`).join(', ')}`,
    `INSERT INTO trades (id, seller_id, buyer_id, qty, price, traded_on) VALUES ${trades
      .map((t) => `(${t.id}, ${t.sellerId}, ${t.buyerId}, ${t.qty}, ${t.price}, '${t.tradedOn}')`)
      .join(', ')}`,
  ];
}

/** Cypher creating the dataset (Neo4j dialect; Kùzu declares tables first, see its suite). */
export function graphFixtureCypher(): { nodes: string; trades: string } {
  return {
    nodes: 'UNWIND $rows AS row CREATE (:Node {id: row.id, name: row.name, region: row.region})',
    trades:
      'UNWIND $rows AS row MATCH (s:Node {id: row.sellerId}), (b:Node {id: row.buyerId}) ' +
      'CREATE (s)-[:TRADES {id: row.id, qty: row.qty, price: row.price, tradedOn: row.tradedOn}]->(b)',
  };
}
