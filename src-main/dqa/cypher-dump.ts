/**
 * Parser for the graph DQA dumps: Neo4j Cypher `CREATE` scripts. It evaluates the script
 * the way Neo4j would (one statement per `;`, variables scoped to their statement) and
 * returns the resulting graph, so a relationship points at the exact node it would in the
 * database.
 *
 * Statement shapes found in the dumps, all supported:
 * - `CREATE (var:Label {k: v, ...});` (the variable may be reused across statements, e.g.
 *   `CREATE (n: Goods {...})` for every goods node);
 * - `MATCH (a:Label {key: v}), (b:Label {key: v}) CREATE (a)-[r:TYPE {k: v}]->(b);`
 * Also accepted: several patterns or chains in one CREATE (`(a:X)-[:R]->(b:Y)`), `<-[...]-`
 * arrows, several MATCH clauses, and comments.
 *
 * Rejected with a precise error (rather than guessed at): WHERE, MERGE, SET and other clauses,
 * relationship patterns inside MATCH, lists and maps as property values, undirected
 * relationships in CREATE, variables used in a later statement than the one binding them, and
 * MATCH patterns that find no node or more than one node (Neo4j would silently create nothing
 * or create duplicates; either would corrupt the data).
 */
import { repairFieldName } from './dump-defects';
import { TokenCursor, type Token } from './dump-lexer';
import type { DumpValue } from './sql-dump';

export interface DumpNode {
  variable: string | null;
  labels: string[];
  properties: Record<string, DumpValue>;
}

/** from/to index into nodes */
export interface DumpRelationship {
  type: string;
  from: number;
  to: number;
  properties: Record<string, DumpValue>;
}

export interface GraphDump {
  nodes: DumpNode[];
  relationships: DumpRelationship[];
}

interface NodePattern {
  token: Token;
  variable: string | null;
  labels: string[];
  properties: Record<string, DumpValue> | null;
}

interface RelationshipPattern {
  token: Token;
  type: string | null;
  properties: Record<string, DumpValue>;
  direction: 'right' | 'left' | 'none';
}

interface PathPattern {
  start: NodePattern;
  steps: { relationship: RelationshipPattern; node: NodePattern }[];
}

/**
 * Looks nodes up by label, then property, then value, so MATCH stays fast on dumps with
 * thousands of MATCHes. Values are Map keys as they are: Cypher compares numbers by value
 * (1 = 1.0, one JS number), never equates a number with a string, and never matches null.
 */
class NodeIndex {
  private readonly entries = new Map<string, Map<string, Map<DumpValue, number[]>>>();

  add(nodeIndex: number, node: DumpNode): void {
    for (const label of node.labels) {
      let byKey = this.entries.get(label);
      if (byKey === undefined) {
        byKey = new Map();
        this.entries.set(label, byKey);
      }
      for (const key in node.properties) {
        const value = node.properties[key] as DumpValue;
        if (value === null) continue;
        let byValue = byKey.get(key);
        if (byValue === undefined) {
          byValue = new Map();
          byKey.set(key, byValue);
        }
        const list = byValue.get(value);
        if (list === undefined) byValue.set(value, [nodeIndex]);
        else list.push(nodeIndex);
      }
    }
  }

  lookup(label: string, key: string, value: DumpValue): number[] {
    if (value === null) return [];
    return this.entries.get(label)?.get(key)?.get(value) ?? [];
  }
}

export function parseCypherDump(text: string, source = '<cypher dump>'): GraphDump {
  const cursor = new TokenCursor(text, 'cypher', source);
  const graph: GraphDump = { nodes: [], relationships: [] };
  const index = new NodeIndex();

  while (!cursor.atEnd()) {
    if (cursor.acceptPunct(';')) continue;
    parseStatement(cursor, graph, index);
    if (!cursor.atEnd()) cursor.expectPunct(';', 'or CREATE at the end of the statement');
  }
  return graph;
}

function parseStatement(cursor: TokenCursor, graph: GraphDump, index: NodeIndex): void {
  const bindings = new Map<string, number>();
  let sawCreate = false;
  while (!cursor.atEnd() && !cursor.isPunct(';')) {
    if (cursor.isKeyword('MATCH')) {
      if (sawCreate) throw cursor.error(cursor.peek(), 'MATCH after CREATE in the same statement is not supported');
      cursor.next();
      for (const path of parsePatternList(cursor)) bindMatch(cursor, path, graph, index, bindings);
      continue;
    }
    if (cursor.isKeyword('CREATE')) {
      cursor.next();
      sawCreate = true;
      for (const path of parsePatternList(cursor)) createPath(cursor, path, graph, index, bindings);
      continue;
    }
    const token = cursor.peek();
    if (token.kind === 'identifier' && !token.quoted) {
      throw cursor.error(token, `unsupported Cypher clause ${token.text} (supported: CREATE and MATCH ... CREATE)`);
    }
    throw cursor.expected(sawCreate ? "',', ';' or another clause" : 'MATCH or CREATE');
  }
  if (!sawCreate) throw cursor.error(cursor.peek(), 'statement has MATCH but no CREATE');
}

function parsePatternList(cursor: TokenCursor): PathPattern[] {
  const paths: PathPattern[] = [];
  do {
    const start = parseNodePattern(cursor);
    const steps: PathPattern['steps'] = [];
    while (cursor.isPunct('-') || cursor.isPunct('<')) {
      const relationship = parseRelationshipPattern(cursor);
      steps.push({ relationship, node: parseNodePattern(cursor) });
    }
    paths.push({ start, steps });
  } while (cursor.acceptPunct(','));
  return paths;
}

function parseNodePattern(cursor: TokenCursor): NodePattern {
  const token = cursor.expectPunct('(', 'to start a node pattern');
  let variable: string | null = null;
  if (cursor.peek().kind === 'identifier') variable = cursor.next().text;
  const labels: string[] = [];
  while (cursor.acceptPunct(':')) labels.push(cursor.expectIdentifier('a label after ":"').text);
  const properties = cursor.isPunct('{') ? parseProperties(cursor) : null;
  cursor.expectPunct(')', 'to close the node pattern');
  return { token, variable, labels, properties };
}

function parseRelationshipPattern(cursor: TokenCursor): RelationshipPattern {
  const token = cursor.peek();
  const leftArrow = cursor.acceptPunct('<');
  cursor.expectPunct('-', 'in a relationship pattern');
  cursor.expectPunct('[', "after '-' (relationships must be written -[...]->)");
  if (cursor.peek().kind === 'identifier') cursor.next(); // relationship variables are never referenced by the dumps
  let type: string | null = null;
  if (cursor.acceptPunct(':')) {
    type = cursor.expectIdentifier('a relationship type after ":"').text;
    if (cursor.isPunct('|')) throw cursor.error(cursor.peek(), 'alternative relationship types are not supported in a dump');
  }
  const properties = cursor.isPunct('{') ? parseProperties(cursor) : {};
  cursor.expectPunct(']', 'to close the relationship pattern');
  cursor.expectPunct('-', "after ']'");
  const rightArrow = cursor.acceptPunct('>');
  if (leftArrow && rightArrow) throw cursor.error(token, 'relationship pattern points both ways');
  return { token, type, properties, direction: leftArrow ? 'left' : rightArrow ? 'right' : 'none' };
}

function parseProperties(cursor: TokenCursor): Record<string, DumpValue> {
  cursor.expectPunct('{', 'to start a property map');
  const properties: Record<string, DumpValue> = {};
  /** Keys written in a defective spelling, as written (any other key was written as it is stored). */
  const spellings: string[] = [];
  if (cursor.acceptPunct('}')) return properties;
  do {
    const keyToken = cursor.expectIdentifier('a property name');
    const key = repairFieldName(keyToken.text);
    if (Object.hasOwn(properties, key)) {
      const earlier = spellings.find((spelling) => repairFieldName(spelling) === key) ?? key;
      throw cursor.error(keyToken, earlier === keyToken.text ? `duplicate property ${key}` : `property ${key} given twice (as ${earlier} and ${keyToken.text})`);
    }
    if (key !== keyToken.text) spellings.push(keyToken.text);
    if (!cursor.acceptPunct(':')) throw cursor.expected(`':' after property name ${keyToken.text}`);
    properties[key] = parseValue(cursor, keyToken.text);
  } while (cursor.acceptPunct(','));
  cursor.expectPunct('}', "or ',' in the property map");
  return properties;
}

function parseValue(cursor: TokenCursor, key: string): DumpValue {
  const token = cursor.peek();
  if (token.kind === 'string') {
    cursor.next();
    return token.text;
  }
  if (token.kind === 'number') {
    cursor.next();
    return token.numberValue;
  }
  if (cursor.isPunct('-') || cursor.isPunct('+')) {
    cursor.next();
    const numberToken = cursor.next();
    if (numberToken.kind !== 'number') throw cursor.expected(`a number after '${token.text}'`, numberToken);
    return token.text === '-' ? -numberToken.numberValue : numberToken.numberValue;
  }
  if (cursor.isKeyword('TRUE') || cursor.isKeyword('FALSE')) {
    cursor.next();
    return token.text.toUpperCase() === 'TRUE';
  }
  if (cursor.isKeyword('NULL')) {
    cursor.next();
    return null;
  }
  if (cursor.isPunct('[') || cursor.isPunct('{')) {
    throw cursor.error(token, `list and map values are not supported (property ${key})`);
  }
  throw cursor.expected(`a value for property ${key} (string, number, true, false or null)`);
}

function bindMatch(cursor: TokenCursor, path: PathPattern, graph: GraphDump, index: NodeIndex, bindings: Map<string, number>): void {
  const first = path.steps[0];
  if (first !== undefined) throw cursor.error(first.relationship.token, 'relationship patterns in MATCH are not supported');
  const pattern = path.start;
  if (pattern.variable === null) throw cursor.error(pattern.token, 'a MATCH node pattern needs a variable');
  if (bindings.has(pattern.variable)) throw cursor.error(pattern.token, `variable ${pattern.variable} is bound twice in one statement`);
  const properties = pattern.properties ?? {};
  const firstLabel = pattern.labels[0];
  let firstKey: string | undefined;
  for (const key in properties) {
    firstKey = key;
    break;
  }
  if (firstLabel === undefined || firstKey === undefined) {
    throw cursor.error(pattern.token, `MATCH (${pattern.variable}) needs a label and a property to identify one node`);
  }
  let match = -1;
  let count = 0;
  for (const nodeIndex of index.lookup(firstLabel, firstKey, properties[firstKey] as DumpValue)) {
    if (!nodeMatches(graph.nodes[nodeIndex] as DumpNode, pattern.labels, properties)) continue;
    if (count === 0) match = nodeIndex;
    count += 1;
  }
  if (count === 0) throw cursor.error(pattern.token, `MATCH ${describePattern(pattern)} finds no node created before this line`);
  if (count > 1) throw cursor.error(pattern.token, `MATCH ${describePattern(pattern)} is ambiguous: ${count} nodes match`);
  bindings.set(pattern.variable, match);
}

function nodeMatches(node: DumpNode, labels: readonly string[], properties: Record<string, DumpValue>): boolean {
  for (const label of labels) if (!node.labels.includes(label)) return false;
  for (const key in properties) {
    const value = properties[key] as DumpValue;
    if (value === null || node.properties[key] !== value) return false;
  }
  return true;
}

function describePattern(pattern: NodePattern): string {
  const labels = pattern.labels.map((label) => `:${label}`).join('');
  const properties = Object.entries(pattern.properties ?? {})
    .map(([key, value]) => `${key}: ${JSON.stringify(value)}`)
    .join(', ');
  return `(${pattern.variable ?? ''}${labels} {${properties}})`;
}

function createPath(cursor: TokenCursor, path: PathPattern, graph: GraphDump, index: NodeIndex, bindings: Map<string, number>): void {
  let previous = resolveOrCreateNode(cursor, path.start, graph, index, bindings);
  for (const { relationship, node } of path.steps) {
    const current = resolveOrCreateNode(cursor, node, graph, index, bindings);
    if (relationship.type === null) throw cursor.error(relationship.token, 'a created relationship needs a type');
    if (relationship.direction === 'none') throw cursor.error(relationship.token, 'a created relationship needs a direction (-> or <-)');
    const [from, to] = relationship.direction === 'right' ? [previous, current] : [current, previous];
    graph.relationships.push({ type: relationship.type, from, to, properties: relationship.properties });
    previous = current;
  }
}

function resolveOrCreateNode(cursor: TokenCursor, pattern: NodePattern, graph: GraphDump, index: NodeIndex, bindings: Map<string, number>): number {
  if (pattern.variable !== null) {
    const bound = bindings.get(pattern.variable);
    if (bound !== undefined) {
      if (pattern.labels.length > 0 || pattern.properties !== null) {
        throw cursor.error(pattern.token, `variable ${pattern.variable} is already bound; it cannot be given labels or properties again`);
      }
      return bound;
    }
    if (pattern.labels.length === 0 && pattern.properties === null) {
      throw cursor.error(
        pattern.token,
        `variable ${pattern.variable} is not bound in this statement (Cypher variables do not survive ';'); it would create an empty node`,
      );
    }
  }
  const node: DumpNode = { variable: pattern.variable, labels: pattern.labels, properties: pattern.properties ?? {} };
  const nodeIndex = graph.nodes.length;
  graph.nodes.push(node);
  index.add(nodeIndex, node);
  if (pattern.variable !== null) bindings.set(pattern.variable, nodeIndex);
  return nodeIndex;
}
