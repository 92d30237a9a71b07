/**
 * Fast reading of graph dumps: `readCypherDump` gives exactly what `parseCypherDump` gives
 * (the same nodes, relationships and properties, or the same error), several times faster on
 * the DQA dumps.
 *
 * The two statement shapes the dumps are made of are scanned in place (dump-scan.ts):
 * - `CREATE (var:Label[:Label…] {k: v, …});`
 * - `MATCH (a:Label {k: v}), (b:Label {k: v}) CREATE (a)-[r:TYPE {k: v, …}]->(b);` (or `<-[…]-`),
 * each MATCH finding exactly one node created before it, as the strict parser requires. At
 * anything else (other clauses, chains, escaped strings, a MATCH finding no node or several)
 * the scan gives up and the whole dump goes to the strict parser, which reads it or says
 * precisely what is wrong and where.
 */
import { repairFieldName } from './dump-defects';
import { attemptScan, CH, DumpText, giveUp, isIdentifierStart } from './dump-scan';
import { parseCypherDump, type DumpNode, type DumpRelationship, type GraphDump } from './cypher-dump';
import type { DumpValue } from './sql-dump';

/** The dump's graph, read by the fast scanner when it can and by the strict parser otherwise. */
export function readCypherDump(text: string, source = '<cypher dump>'): GraphDump {
  return scanCypherDump(text) ?? parseCypherDump(text, source);
}

/** The fast scan alone: the graph `parseCypherDump` would give, or null where it gives up. */
export function scanCypherDump(text: string): GraphDump | null {
  return attemptScan(() => scan(text));
}

/** Marks a (label, key, value) that several nodes share: a MATCH on it is ambiguous. */
const SEVERAL = -1;

/**
 * Nodes by label, property and value, for the (label, key) pairs MATCH uses: an index is built
 * the first time a pair is matched on, then kept up to date as nodes are created.
 */
class MatchIndex {
  private readonly byLabel = new Map<string, Map<string, Map<DumpValue, number>>>();
  /** The last (label, key) looked up: consecutive MATCHes nearly always use the same one. */
  private lastLabel = '';
  private lastKey = '';
  private lastValues: Map<DumpValue, number> | null = null;

  constructor(private readonly nodes: DumpNode[]) {}

  /** The one node with `label` and key = value, or -1 when there is none or more than one. */
  find(label: string, key: string, value: DumpValue): number {
    if (this.lastValues !== null && label === this.lastLabel && key === this.lastKey) {
      const found = this.lastValues.get(value);
      return found === undefined ? -1 : found;
    }
    const byValue = this.valuesOf(label, key);
    this.lastLabel = label;
    this.lastKey = key;
    this.lastValues = byValue;
    const found = byValue.get(value);
    return found === undefined ? -1 : found;
  }

  private valuesOf(label: string, key: string): Map<DumpValue, number> {
    let byKey = this.byLabel.get(label);
    if (byKey === undefined) {
      byKey = new Map();
      this.byLabel.set(label, byKey);
    }
    let byValue = byKey.get(key);
    if (byValue === undefined) {
      byValue = new Map();
      byKey.set(key, byValue);
      for (let index = 0; index < this.nodes.length; index += 1) {
        const node = this.nodes[index] as DumpNode;
        if (node.labels.includes(label)) add(byValue, node, key, index);
      }
    }
    return byValue;
  }

  added(node: DumpNode, index: number): void {
    for (const label of node.labels) {
      const byKey = this.byLabel.get(label);
      if (byKey === undefined) continue;
      for (const [key, byValue] of byKey) add(byValue, node, key, index);
    }
  }
}

function add(byValue: Map<DumpValue, number>, node: DumpNode, key: string, index: number): void {
  if (!Object.hasOwn(node.properties, key)) return;
  const value = node.properties[key] as DumpValue;
  if (value === null) return;
  byValue.set(value, byValue.has(value) ? SEVERAL : index);
}

function scan(text: string): GraphDump {
  const reader = new DumpText(text, 'cypher');
  const graph: GraphDump = { nodes: [], relationships: [] };
  const index = new MatchIndex(graph.nodes);
  const bound: Bindings = { names: [], nodes: [] };
  /** Labels, types and property keys seen so far (see DumpText.name). */
  const names: string[] = [];
  for (;;) {
    reader.skipBlank();
    if (reader.atEnd()) break;
    if (reader.peek() === CH.semicolon) {
      reader.pos += 1;
      continue;
    }
    if (reader.acceptKeyword('create')) {
      const node = nodePattern(reader, names);
      if (node.variable === null || node.labels.length === 0) giveUp();
      graph.nodes.push(node);
      index.added(node, graph.nodes.length - 1);
    } else if (reader.acceptKeyword('match')) {
      graph.relationships.push(matchCreate(reader, index, bound, names));
    } else {
      giveUp();
    }
    reader.skipBlank();
    if (reader.atEnd()) break;
    reader.expect(CH.semicolon);
  }
  return graph;
}

/** `(var:Label… {…})` as a node to create (properties {} when none are written). */
function nodePattern(reader: DumpText, names: string[]): DumpNode {
  reader.expect(CH.openParen);
  const variable = reader.identifier();
  const labels: string[] = [];
  while (reader.accept(CH.colon)) {
    const label = reader.name(names);
    if (label === null) giveUp();
    labels.push(label);
  }
  reader.skipBlank();
  const properties = reader.peek() === CH.openBrace ? propertyMap(reader, names) : {};
  reader.expect(CH.closeParen);
  return { variable, labels, properties };
}

/** `{k: v, …}`: keys repaired as the strict parser repairs them; a key given twice gives up. */
function propertyMap(reader: DumpText, names: string[]): Record<string, DumpValue> {
  reader.expect(CH.openBrace);
  const properties: Record<string, DumpValue> = {};
  if (reader.accept(CH.closeBrace)) return properties;
  do {
    const written = reader.name(names);
    if (written === null) giveUp();
    const key = repairFieldName(written);
    if (Object.hasOwn(properties, key)) giveUp();
    reader.expect(CH.colon);
    properties[key] = value(reader);
  } while (reader.accept(CH.comma));
  reader.expect(CH.closeBrace);
  return properties;
}

function value(reader: DumpText): DumpValue {
  reader.skipBlank();
  const c = reader.peek();
  if (c === CH.doubleQuote || c === CH.singleQuote) return reader.string() as string;
  if (isIdentifierStart(c)) {
    if (reader.acceptKeyword('true')) return true;
    if (reader.acceptKeyword('false')) return false;
    if (reader.acceptKeyword('null')) return null;
    return giveUp();
  }
  const number = reader.number();
  return Number.isNaN(number) ? giveUp() : number;
}

/** The variables a MATCH bound and their nodes, reused from statement to statement. */
interface Bindings {
  names: string[];
  nodes: number[];
}

/** `(a:Label {k: v}), … CREATE (x)-[r:TYPE {…}]->(y)` after MATCH: the relationship it creates. */
function matchCreate(reader: DumpText, index: MatchIndex, bound: Bindings, names: string[]): DumpRelationship {
  bound.names.length = 0;
  bound.nodes.length = 0;
  do matchPattern(reader, index, bound, names);
  while (reader.accept(CH.comma));
  reader.expectKeyword('create');
  const from = boundNode(reader, bound);
  reader.skipBlank();
  const leftArrow = reader.accept(CH.less);
  reader.expect(CH.minus);
  reader.expect(CH.openBracket);
  reader.identifier(); // relationship variables are never referenced by the dumps
  reader.expect(CH.colon);
  const type = reader.name(names);
  if (type === null) giveUp();
  reader.skipBlank();
  const properties = reader.peek() === CH.openBrace ? propertyMap(reader, names) : {};
  reader.expect(CH.closeBracket);
  reader.expect(CH.minus);
  const rightArrow = reader.accept(CH.greater);
  if (leftArrow === rightArrow) giveUp();
  const to = boundNode(reader, bound);
  reader.skipBlank();
  const next = reader.peek();
  if (next === CH.minus || next === CH.less || next === CH.comma) giveUp();
  return rightArrow ? { type, from, to, properties } : { type, from: to, to: from, properties };
}

/** `(var:Label {key: value})` in a MATCH: binds var to the one node created before with that label and value. */
function matchPattern(reader: DumpText, index: MatchIndex, bound: Bindings, names: string[]): void {
  reader.expect(CH.openParen);
  const variable = reader.identifier();
  if (variable === null || bound.names.includes(variable)) giveUp();
  reader.expect(CH.colon);
  const label = reader.name(names);
  if (label === null) giveUp();
  reader.expect(CH.openBrace);
  const written = reader.name(names);
  if (written === null) giveUp();
  reader.expect(CH.colon);
  const wanted = value(reader);
  reader.expect(CH.closeBrace);
  reader.expect(CH.closeParen);
  if (wanted === null) giveUp();
  const found = index.find(label, repairFieldName(written), wanted);
  if (found < 0) giveUp();
  bound.names.push(variable);
  bound.nodes.push(found);
}

/** `(var)` naming a node the MATCH bound. */
function boundNode(reader: DumpText, bound: Bindings): number {
  reader.expect(CH.openParen);
  const at = reader.oneOf(bound.names);
  if (at < 0) giveUp();
  reader.expect(CH.closeParen);
  return bound.nodes[at] as number;
}
