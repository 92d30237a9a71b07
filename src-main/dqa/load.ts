/**
 * Loaders from DQA dumps to the simulators' plain data shapes. Kept apart from the
 * simulation math: a loader reading through a database connector only has to produce the
 * same LocatingData / BuildingData.
 */
import type { BuildingData } from './building-data';
import { readCypherDump } from './cypher-scan';
import { buildingFromGraph, locatingFromGraph } from './load-graph';
import { buildingFromTables, locatingFromTables } from './load-relational';
import type { LocatingData } from './locating-data';
import { readSqlDump } from './sql-scan';

export { buildingFromGraph, locatingFromGraph } from './load-graph';
export { buildingFromTables, locatingFromTables } from './load-relational';
export { DqaDataError } from './load-values';

/** Which kind of dump a file is, from its extension (.sql relational, .cql graph). */
export type DumpKind = 'relational' | 'graph';

export function dumpKindOf(path: string): DumpKind {
  if (/\.sql$/i.test(path)) return 'relational';
  if (/\.cql$/i.test(path)) return 'graph';
  throw new Error(`cannot tell the dump kind of ${path}: expected a .sql or .cql file`);
}

export function loadLocatingDump(text: string, kind: DumpKind, source?: string): LocatingData {
  return kind === 'relational' ? locatingFromTables(readSqlDump(text, source), source) : locatingFromGraph(readCypherDump(text, source), source);
}

export function loadBuildingDump(text: string, kind: DumpKind, source?: string): BuildingData {
  return kind === 'relational' ? buildingFromTables(readSqlDump(text, source), source) : buildingFromGraph(readCypherDump(text, source), source);
}
