/**
 * Plans the import of a parsed graph dump into a new LadybugDB database: the DDL (LadybugDB's schema is
 * declared), one CSV file per node label and per relationship (type, endpoint labels), and the
 * COPY statements that load them. Pure: ladybug-import.ts writes the files and runs the plan.
 *
 * Why CSV and COPY: it is LadybugDB's bulk path, and its number parsing round-trips doubles
 * exactly (checked by the import tests). Binding a list of maps as one parameter does not:
 * LadybugDB 0.11's Node binding reinterprets integer-valued numbers inside a DOUBLE list.
 *
 * Every node and relationship gets an `import_order` property, its position in the dump. The
 * node tables use it as their primary key (the dumps have no declared keys) and the
 * connector loader orders by it, because LadybugDB itself keeps no insertion order for
 * relationships and table order is part of the DQA tie-break.
 */
import { join } from 'node:path';
import type { DumpNode, GraphDump } from './cypher-dump';
import { IMPORT_ORDER_COLUMN } from './connector-sql-load';
import { DqaDataError } from './load-values';
import type { DumpValue } from './sql-dump';

export type LadybugPropertyType = 'BOOLEAN' | 'INT64' | 'DOUBLE' | 'STRING';

export interface LadybugCsvFile {
  /** File name inside the staging folder. */
  name: string;
  content: string;
}

/** One bulk load: a CSV file into a table (and, for a relationship table with several endpoint pairs, which pair). */
export interface LadybugLoad {
  table: string;
  file: LadybugCsvFile;
  endpoints?: { from: string; to: string };
}

export interface LadybugImportPlan {
  ddl: string[];
  loads: LadybugLoad[];
}

interface PropertyColumn {
  name: string;
  type: LadybugPropertyType;
}

function quoteName(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}

function quoteString(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

type ValueKind = 'boolean' | 'integer' | 'float' | 'string';

function kindOf(value: Exclude<DumpValue, null>): ValueKind {
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return 'string';
  return Number.isSafeInteger(value) ? 'integer' : 'float';
}

/** The narrowest LadybugDB type holding every value; a mix of kinds is kept as text, which the DQA readers accept. */
function typeFor(kinds: ReadonlySet<ValueKind>): LadybugPropertyType {
  if (kinds.size === 1 && kinds.has('boolean')) return 'BOOLEAN';
  if (kinds.size === 1 && kinds.has('integer')) return 'INT64';
  if ([...kinds].every((kind) => kind === 'integer' || kind === 'float') && kinds.size > 0) return 'DOUBLE';
  return 'STRING';
}

/** Property columns over a group of records, in order of first appearance. */
function columnsOf(records: readonly Record<string, DumpValue>[], where: string): PropertyColumn[] {
  const kinds = new Map<string, Set<ValueKind>>();
  for (const properties of records) {
    for (const [key, value] of Object.entries(properties)) {
      if (key.toLowerCase() === IMPORT_ORDER_COLUMN) throw new DqaDataError(`${where}: property ${key} clashes with the importer's own ${IMPORT_ORDER_COLUMN}`);
      const set = kinds.get(key) ?? new Set<ValueKind>();
      if (value !== null) set.add(kindOf(value));
      kinds.set(key, set);
    }
  }
  return [...kinds].map(([name, set]) => ({ name, type: typeFor(set) }));
}

/** One CSV field. LadybugDB reads an empty field, quoted or not, as NULL, so an empty string cannot be kept and is refused. */
function csvField(value: DumpValue | undefined, type: LadybugPropertyType, where: string): string {
  if (value === null || value === undefined) return '';
  if (type === 'STRING') {
    const text = String(value);
    if (text === '') throw new DqaDataError(`${where}: empty strings cannot be imported into LadybugDB (its CSV reader turns them into NULL)`);
    return `"${text.replaceAll('"', '""')}"`;
  }
  return String(value);
}

function csvLine(fields: string[]): string {
  return `${fields.join(',')}\n`;
}

/**
 * The statements that build the database once the plan's files are written into `directory`.
 * PARALLEL=false: LadybugDB's parallel CSV reader refuses quoted newlines, which strings may hold.
 */
export function ladybugImportStatements(plan: LadybugImportPlan, directory: string): string[] {
  const copies = plan.loads.map(({ table, file, endpoints }) => {
    const options = ['HEADER=false', 'PARALLEL=false'];
    if (endpoints !== undefined) options.push(`from=${quoteString(endpoints.from)}`, `to=${quoteString(endpoints.to)}`);
    return `COPY ${quoteName(table)} FROM ${quoteString(join(directory, file.name))} (${options.join(', ')})`;
  });
  return [...plan.ddl, ...copies];
}

function singleLabel(node: DumpNode, index: number, source: string): string {
  if (node.labels.length !== 1) {
    throw new DqaDataError(`${source}: node #${index + 1} has ${node.labels.length === 0 ? 'no label' : `labels ${node.labels.join(':')}`}; LadybugDB needs exactly one label per node`);
  }
  return node.labels[0] as string;
}

/** Groups items by key, keeping first-appearance order of keys and file order within each group. */
function groupBy<T>(items: readonly T[], keyOf: (item: T, index: number) => string): Map<string, { item: T; index: number }[]> {
  const groups = new Map<string, { item: T; index: number }[]>();
  items.forEach((item, index) => {
    const key = keyOf(item, index);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [{ item, index }]);
    else group.push({ item, index });
  });
  return groups;
}

export function planLadybugImport(graph: GraphDump, source = '<graph dump>'): LadybugImportPlan {
  const labelOf = graph.nodes.map((node, index) => singleLabel(node, index, source));
  const ddl: string[] = [];
  const loads: LadybugLoad[] = [];
  const tableNames = new Set<string>();
  const claim = (name: string, kind: string): void => {
    // LadybugDB keeps node and relationship tables in one namespace.
    if (tableNames.has(name.toLowerCase())) throw new DqaDataError(`${source}: ${kind} ${name} has the same name as another label or relationship type`);
    tableNames.add(name.toLowerCase());
  };

  const nodeGroups = groupBy(graph.nodes, (_node, index) => labelOf[index] as string);
  for (const [label, members] of nodeGroups) {
    claim(label, 'label');
    const columns = columnsOf(members.map((m) => m.item.properties), `${source}: :${label} nodes`);
    const declared = [`${quoteName(IMPORT_ORDER_COLUMN)} INT64 PRIMARY KEY`, ...columns.map((c) => `${quoteName(c.name)} ${c.type}`)];
    ddl.push(`CREATE NODE TABLE ${quoteName(label)}(${declared.join(', ')})`);
    const name = `node-${loads.length}.csv`;
    const content = members
      .map(({ item, index }) => csvLine([String(index), ...columns.map((c) => csvField(item.properties[c.name], c.type, `${source}: node #${index + 1}, ${c.name}`))]))
      .join('');
    loads.push({ table: label, file: { name, content } });
  }

  const relationshipGroups = groupBy(graph.relationships, (relationship) => relationship.type);
  for (const [type, members] of relationshipGroups) {
    claim(type, 'relationship type');
    const columns = columnsOf(members.map((m) => m.item.properties), `${source}: :${type} relationships`);
    const pairs = groupBy(members, ({ item }) => `${labelOf[item.from] as string}\u0000${labelOf[item.to] as string}`);
    const endpoints = [...pairs.keys()].map((key) => key.split('\u0000') as [string, string]);
    const declared = [
      ...endpoints.map(([from, to]) => `FROM ${quoteName(from)} TO ${quoteName(to)}`),
      ...columns.map((c) => `${quoteName(c.name)} ${c.type}`),
      `${quoteName(IMPORT_ORDER_COLUMN)} INT64`,
    ];
    ddl.push(`CREATE REL TABLE ${quoteName(type)}(${declared.join(', ')})`);
    for (const [key, pairMembers] of pairs) {
      const [from, to] = key.split('\u0000') as [string, string];
      const name = `rel-${loads.length}.csv`;
      const content = pairMembers
        .map(({ item: { index, item } }) =>
          csvLine([
            String(item.from),
            String(item.to),
            ...columns.map((c) => csvField(item.properties[c.name], c.type, `${source}: relationship #${index + 1}, ${c.name}`)),
            String(index),
          ]),
        )
        .join('');
      loads.push({ table: type, file: { name, content }, ...(endpoints.length > 1 ? { endpoints: { from, to } } : {}) });
    }
  }
  return { ddl, loads };
}
