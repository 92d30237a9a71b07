/**
 * A straightforward reference implementation of the DQA compat rules, written for the
 * benchmark only and sharing no code with src-main/dqa: every question re-reads and re-parses
 * its dump with regular expressions into one plain object per row, and the simulations keep
 * their state in Maps keyed by name / code and simulate every candidate over every row (no
 * pruning). It is what a first, direct implementation of the rules would look like; the
 * benchmark times the real CLI against it and checks both give the same answers.
 *
 * Rules as in fixtures/dqa/README.md (Building: "exactly as the annotation computed it") and
 * src-main/dqa/RULES.md (Locating compat).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

type Value = string | number | boolean | null;
type Row = Record<string, Value>;

/** MySQL dump: one `INSERT INTO t(cols) VALUES (...);` per row (the DQA dumps' shape). */
function parseSql(text: string): Map<string, Row[]> {
  const tables = new Map<string, Row[]>();
  const insert = /INSERT INTO\s+(\w+)\s*\(([^)]*)\)\s*VALUES\s*\((.*)\)\s*;/gi;
  for (const match of text.matchAll(insert)) {
    const table = (match[1] as string).toLowerCase();
    const columns = (match[2] as string).split(',').map((c) => c.trim().toLowerCase().replace(/^has_has_merchant$/, 'has_merchant'));
    const values = [...(match[3] as string).matchAll(/\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^,]+)\s*(?:,|$)/g)].map((m) => sqlValue(m[1] as string));
    const row: Row = {};
    columns.forEach((column, i) => {
      row[column] = values[i] ?? null;
    });
    if (!tables.has(table)) tables.set(table, []);
    (tables.get(table) as Row[]).push(row);
  }
  return tables;
}

function sqlValue(text: string): Value {
  const t = text.trim();
  if (/^["']/.test(t)) return t.slice(1, -1);
  if (/^true$/i.test(t)) return true;
  if (/^false$/i.test(t)) return false;
  if (/^null$/i.test(t)) return null;
  return Number(t);
}

interface GraphNode {
  labels: string[];
  props: Row;
}
interface GraphRel {
  type: string;
  from: GraphNode;
  to: GraphNode;
  props: Row;
}

function cypherProps(text: string | undefined): Row {
  const props: Row = {};
  for (const m of (text ?? '').matchAll(/(\w+)\s*:\s*("(?:[^"\\]|\\.)*"|[^,}]+)/g)) {
    const key = (m[1] as string).replace(/^has_has_merchant$/, 'has_merchant');
    props[key] = sqlValue(m[2] as string);
  }
  return props;
}

/** Neo4j dump: `CREATE (v:Label {…});` nodes and `MATCH (a:L {k: v}), (b:L {k: v}) CREATE (x)-[r:T{…}]->(y);` relationships. */
function parseCypher(text: string): { nodes: GraphNode[]; rels: GraphRel[] } {
  const nodes: GraphNode[] = [];
  const rels: GraphRel[] = [];
  /** `Label key value` -> node, for MATCH. */
  const byProperty = new Map<string, GraphNode>();
  for (const statement of text.split(/;\s*\n/)) {
    const s = statement.trim();
    const create = /^CREATE\s*\(\s*\w*\s*:\s*(\w+)\s*(\{.*\})\s*\)\s*;?$/s.exec(s);
    if (create) {
      const node = { labels: [create[1] as string], props: cypherProps(create[2]) };
      nodes.push(node);
      for (const [key, value] of Object.entries(node.props)) byProperty.set(`${node.labels[0]} ${key} ${String(value)}`, node);
      continue;
    }
    const match = /^MATCH\s*\((\w+)\s*:\s*(\w+)\s*\{\s*(\w+)\s*:\s*([^}]+)\}\s*\)\s*,\s*\((\w+)\s*:\s*(\w+)\s*\{\s*(\w+)\s*:\s*([^}]+)\}\s*\)\s*CREATE\s*\((\w+)\)\s*-\s*\[\s*\w*\s*:\s*(\w+)\s*(\{[^}]*\})?\s*\]\s*->\s*\((\w+)\)/s.exec(s);
    if (!match) continue;
    const find = (label: string, key: string, value: string): GraphNode => {
      const node = byProperty.get(`${label} ${key} ${String(sqlValue(value))}`);
      if (!node) throw new Error(`no node ${label} ${key}=${value}`);
      return node;
    };
    const bound = new Map<string, GraphNode>([
      [match[1] as string, find(match[2] as string, match[3] as string, match[4] as string)],
      [match[5] as string, find(match[6] as string, match[7] as string, match[8] as string)],
    ]);
    rels.push({ type: match[10] as string, from: bound.get(match[9] as string) as GraphNode, to: bound.get(match[12] as string) as GraphNode, props: cypherProps(match[11]) });
  }
  return { nodes, rels };
}

const bool = (value: Value): boolean => value === true || value === 1 || (typeof value === 'string' && value.toLowerCase() === 'true');
const num = (value: Value): number => Number(value);

interface LocatingTables {
  countries: { name: string; home: string; development: number }[];
  nodes: { name: string; localValue: number; inland: boolean; totalPower: number; ingoing: number }[];
  flows: { source: string; dest: string }[];
  presences: { node: string; country: string; isHome: boolean; base: number; calculated: number }[];
}

function locatingTables(path: string): LocatingTables {
  const text = readFileSync(path, 'utf8');
  if (path.endsWith('.sql')) {
    const t = parseSql(text);
    return {
      countries: (t.get('country') ?? []).map((r) => ({ name: String(r['country_name']), home: String(r['home_node']), development: num(r['development'] ?? null) })),
      nodes: (t.get('trade_node') ?? []).map((r) => ({
        name: String(r['trade_node']),
        localValue: num(r['local_value'] ?? null),
        inland: bool(r['is_inland'] ?? null),
        totalPower: num(r['total_power'] ?? null),
        ingoing: num(r['ingoing'] ?? null),
      })),
      flows: (t.get('flow') ?? []).map((r) => ({ source: String(r['source']), dest: String(r['dest']) })),
      presences: (t.get('node_country') ?? []).map((r) => ({
        node: String(r['trade_node']),
        country: String(r['country_name']),
        isHome: bool(r['is_home'] ?? null),
        base: num(r['base_trading_power'] ?? null),
        calculated: num(r['calculated_trading_power'] ?? null),
      })),
    };
  }
  const g = parseCypher(text);
  return {
    countries: g.nodes.filter((n) => n.labels.includes('Country')).map((n) => ({ name: String(n.props['name']), home: String(n.props['home_node']), development: num(n.props['development'] ?? null) })),
    nodes: g.nodes
      .filter((n) => n.labels.includes('Trade_node'))
      .map((n) => ({
        name: String(n.props['name']),
        localValue: num(n.props['local_value'] ?? null),
        inland: bool(n.props['is_inland'] ?? null),
        totalPower: num(n.props['total_power'] ?? null),
        ingoing: num(n.props['ingoing'] ?? null),
      })),
    flows: g.rels.filter((r) => r.type === 'source').map((r) => ({ source: String(r.from.props['name']), dest: String(r.to.props['name']) })),
    presences: g.rels
      .filter((r) => r.type === 'NodeCountry')
      .map((r) => ({
        node: String(r.to.props['name']),
        country: String(r.from.props['name']),
        isHome: bool(r.props['is_home'] ?? null),
        base: num(r.props['base_trading_power'] ?? null),
        calculated: num(r.props['calculated_trading_power'] ?? null),
      })),
  };
}

/** Locating compat: where should `country` put its merchant to maximize its profit at `home`? */
export function referenceLocating(dumpPath: string, country: string, home: string): string {
  const t = locatingTables(dumpPath);
  const development = (t.countries.find((c) => c.name === country) as { development: number }).development;
  const destsOf = new Map<string, string[]>();
  for (const f of t.flows) destsOf.set(f.source, [...(destsOf.get(f.source) ?? []), f.dest]);
  const presencesOf = new Map<string, LocatingTables['presences']>();
  for (const p of t.presences) presencesOf.set(p.node, [...(presencesOf.get(p.node) ?? []), p]);
  // Hops to home, to steer a merchant's outflow towards it.
  const hops = new Map<string, number>([[home, 0]]);
  for (let changed = true; changed; ) {
    changed = false;
    for (const f of t.flows) {
      const after = hops.get(f.dest);
      if (after !== undefined && (hops.get(f.source) ?? Infinity) > after + 1) {
        hops.set(f.source, after + 1);
        changed = true;
      }
    }
  }
  const profit = (merchantAt: string | null): number => {
    const ingoing = new Map(t.nodes.map((n) => [n.name, n.ingoing]));
    for (const node of t.nodes) {
      let total = node.totalPower;
      let nonHome = 0;
      let own = 0;
      let placed = false;
      for (const p of presencesOf.get(node.name) ?? []) {
        let power = p.calculated;
        if (p.country === country) {
          if (node.name === merchantAt) {
            power = 1.05 * (p.base + (2 + (node.inland ? Math.max(50, development) : 0)));
            placed = true;
          }
          own = power;
        }
        total += power;
        if (!p.isHome) nonHome += power;
      }
      const value = node.localValue + (ingoing.get(node.name) as number);
      if (node.name === home) return total === 0 ? 0 : (value * own) / total;
      const dests = destsOf.get(node.name) ?? [];
      if (dests.length === 0 || total === 0) continue;
      const outgoing = (value * nonHome) / total;
      const towardsHome = dests.filter((d) => hops.has(d)).sort((a, b) => (hops.get(a) as number) - (hops.get(b) as number))[0];
      if (placed && towardsHome !== undefined) {
        ingoing.set(towardsHome, (ingoing.get(towardsHome) as number) + outgoing * 1.05);
        continue;
      }
      for (const d of dests) ingoing.set(d, (ingoing.get(d) as number) + (outgoing / dests.length) * 1.05);
    }
    throw new Error('home not reached');
  };
  let best = '';
  let bestProfit = -Infinity;
  for (const node of t.nodes) {
    if (node.name === home) continue;
    const value = profit(node.name);
    if (value > bestProfit) {
      bestProfit = value;
      best = node.name;
    }
  }
  return best;
}

interface BuildingTables {
  goods: { name: string; code: number; base: number; price: number; pop: number }[];
  buildings: { id: number; level: number }[];
  supply: { goods: number; building: number; max: number; output: number }[];
  demand: { goods: number; building: number; max: number }[];
}

function buildingTables(path: string): BuildingTables {
  const text = readFileSync(path, 'utf8');
  if (path.endsWith('.sql')) {
    const t = parseSql(text);
    return {
      goods: (t.get('goods') ?? []).map((r) => ({ name: String(r['goods_name']), code: num(r['code'] ?? null), base: num(r['base_price'] ?? null), price: num(r['current_price'] ?? null), pop: num(r['pop_demand'] ?? null) })),
      buildings: (t.get('building') ?? []).map((r) => ({ id: num(r['id'] ?? null), level: num(r['level'] ?? null) })),
      supply: (t.get('supply') ?? []).map((r) => ({ goods: num(r['goods_id'] ?? null), building: num(r['building_id'] ?? null), max: num(r['max_supply'] ?? null), output: num(r['current_output'] ?? null) })),
      demand: (t.get('demand') ?? []).map((r) => ({ goods: num(r['goods_id'] ?? null), building: num(r['building_id'] ?? null), max: num(r['max_demand'] ?? null) })),
    };
  }
  const g = parseCypher(text);
  const goodsEnd = (r: GraphRel): GraphNode => (r.from.labels.includes('Goods') ? r.from : r.to);
  const buildingEnd = (r: GraphRel): GraphNode => (r.from.labels.includes('Building') ? r.from : r.to);
  return {
    goods: g.nodes
      .filter((n) => n.labels.includes('Goods'))
      .map((n) => ({ name: String(n.props['name']), code: num(n.props['code'] ?? null), base: num(n.props['base_price'] ?? null), price: num(n.props['current_price'] ?? null), pop: num(n.props['pop_demand'] ?? null) })),
    buildings: g.nodes.filter((n) => n.labels.includes('Building')).map((n) => ({ id: num(n.props['id'] ?? null), level: num(n.props['level'] ?? null) })),
    supply: g.rels
      .filter((r) => r.type === 'Supply')
      .map((r) => ({ goods: num(goodsEnd(r).props['code'] ?? null), building: num(buildingEnd(r).props['id'] ?? null), max: num(r.props['max_supply'] ?? null), output: num(r.props['current_output'] ?? null) })),
    demand: g.rels.filter((r) => r.type === 'Demand').map((r) => ({ goods: num(goodsEnd(r).props['code'] ?? null), building: num(buildingEnd(r).props['id'] ?? null), max: num(r.props['max_demand'] ?? null) })),
  };
}

/** Building compat: which building, raised by 5 levels, lowers the price of `goodsName` the most? */
export function referenceBuilding(dumpPath: string, goodsName: string): string {
  const t = buildingTables(dumpPath);
  const target = t.goods.find((g) => g.name === goodsName) as BuildingTables['goods'][number];
  const demandsOf = new Map<number, BuildingTables['demand']>();
  const suppliesOf = new Map<number, BuildingTables['supply']>();
  for (const b of t.buildings) {
    demandsOf.set(b.id, t.demand.filter((r) => r.building === b.id));
    suppliesOf.set(b.id, t.supply.filter((r) => r.building === b.id));
  }
  const add = (map: Map<number, number>, key: number, value: number): void => {
    map.set(key, (map.get(key) ?? 0) + value);
  };
  const priceAfter = (expanded: { id: number; level: number }): number => {
    const factor = (expanded.level + 5) / expanded.level;
    const maxDemand = (r: BuildingTables['demand'][number]): number => (r.building === expanded.id ? r.max * factor : r.max);
    const maxSupply = (r: BuildingTables['supply'][number]): number => (r.building === expanded.id ? r.max * factor : r.max);
    const buildingDemand = new Map<number, number>();
    let supply = new Map<number, number>();
    for (const b of t.buildings) for (const r of demandsOf.get(b.id) ?? []) add(buildingDemand, r.goods, r.max);
    for (const b of t.buildings) for (const r of suppliesOf.get(b.id) ?? []) add(supply, r.goods, r.output);
    for (const b of t.buildings) for (const r of demandsOf.get(b.id) ?? []) add(buildingDemand, r.goods, maxDemand(r));
    const demand = new Map(t.goods.map((g) => [g.code, g.pop + (buildingDemand.get(g.code) ?? 0)]));
    for (const b of t.buildings) for (const r of suppliesOf.get(b.id) ?? []) add(supply, r.goods, maxSupply(r));
    for (let cycle = 0; cycle < 10; cycle += 1) {
      const input = new Map<BuildingTables['demand'][number], number>();
      for (const r of t.demand) input.set(r, (maxDemand(r) * (supply.get(r.goods) ?? 0)) / (demand.get(r.goods) as number));
      const next = new Map<number, number>();
      for (const b of t.buildings) {
        const demands = demandsOf.get(b.id) ?? [];
        if (demands.length === 0) {
          for (const r of suppliesOf.get(b.id) ?? []) add(next, r.goods, r.output);
          continue;
        }
        let sum = 0;
        for (const r of demands) sum += Math.min(input.get(r) as number, maxDemand(r)) / maxDemand(r);
        const ratio = sum / demands.length;
        for (const r of suppliesOf.get(b.id) ?? []) add(next, r.goods, maxSupply(r) * ratio);
      }
      supply = next;
    }
    const d = demand.get(target.code) as number;
    const s = supply.get(target.code) ?? 0;
    if (d === 0 && s === 0) return target.base;
    return target.base * (1 + (0.75 * (d - s)) / Math.max(d, s));
  };
  let best = '';
  let bestPrice = target.price;
  for (const b of t.buildings) {
    const price = priceAfter(b);
    if (price < bestPrice) {
      bestPrice = price;
      best = String(b.id);
    }
  }
  return best;
}

export interface ReferenceQuestion {
  id: string;
  answer: string;
  decide: () => string;
}

/** Every question of a questions.json for one dump kind, each deciding from its own dump file. */
export function referenceQuestions(questionsPath: string, db: 'rdb' | 'gdb'): ReferenceQuestion[] {
  const folder = join(questionsPath, '..');
  const questions = JSON.parse(readFileSync(questionsPath, 'utf8')) as Record<string, unknown>[];
  return questions.map((q) => {
    const dump = join(folder, String(q[db]));
    const decide = 'goods' in q ? (): string => referenceBuilding(dump, String(q['goods'])) : (): string => referenceLocating(dump, String(q['country']), String(q['home']));
    return { id: String(q['id']), answer: String(q['answer']), decide };
  });
}
