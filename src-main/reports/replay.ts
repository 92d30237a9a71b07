import { canonicalJson } from '../audit/canonical-json';
import { connectionFingerprint, databaseFilePath } from '../audit/connection-fingerprint';
import { shortHash } from '../audit/digest';
import type { Connector } from '../connectors/connector';
import type { QueryResult } from '../contract/data';
import { WorkbenchError } from '../contract/errors';
import { resultDigest } from '../engine/result-digest';
import type { ReportBundle } from './bundle-format';
import { plural } from './report-format';
import { buildReport, type QueryRecord } from './report-model';

export interface ReplayedQuery {
  id: string;
  step: number;
  /** `reordered`: the same rows in another order (a query without ORDER BY), not counted as drift. */
  status: 'unchanged' | 'reordered' | 'changed';
  /** One line: what was recorded, and what changed. */
  detail: string;
}

export interface ReplayOutcome {
  queries: ReplayedQuery[];
  schema: 'unchanged' | 'changed' | 'not recorded';
  file: 'unchanged' | 'changed' | 'not recorded' | 'not a file';
  fingerprintDetail: { schema: string; file: string };
  changed: number;
}

const fallbackRowCap = 1000;

/**
 * Re-runs every query a verified bundle recorded, against a connection as it is now, and
 * compares each result's digest with the recorded one (data drift). The recorded row cap is
 * reused so a result that was cut is compared as it was cut; a result that was complete is
 * re-read with room for more rows, so rows added since show as a change.
 */
export async function replayBundle(bundle: ReportBundle, connector: Connector, target: { engine: string }, options: { timeoutMs?: number } = {}): Promise<ReplayOutcome> {
  const report = buildReport(bundle);
  const queries: ReplayedQuery[] = [];
  for (const query of report.queries) queries.push(await replayQuery(query, connector, options.timeoutMs ?? 60_000));

  const recorded = report.connection.fingerprint;
  let schema: ReplayOutcome['schema'] = 'not recorded';
  let file: ReplayOutcome['file'] = 'not recorded';
  const fingerprintDetail = { schema: 'the run recorded no schema hash', file: 'the run recorded no file hash' };
  if (recorded) {
    const now = await connectionFingerprint({ schema: await connector.schema(), filePath: databaseFilePath(target) });
    schema = now.schemaHash === recorded.schemaHash ? 'unchanged' : 'changed';
    fingerprintDetail.schema = schema === 'unchanged' ? `sha256 ${shortHash(now.schemaHash)}` : `sha256 ${shortHash(recorded.schemaHash)} then, ${shortHash(now.schemaHash)} now`;
    if (recorded.fileHash === null || now.fileHash === null) {
      file = 'not a file';
      fingerprintDetail.file = 'not a file database';
    } else {
      file = now.fileHash === recorded.fileHash ? 'unchanged' : 'changed';
      fingerprintDetail.file = file === 'unchanged' ? `sha256 ${shortHash(now.fileHash)}` : `sha256 ${shortHash(recorded.fileHash)} then, ${shortHash(now.fileHash)} now`;
    }
  }
  return { queries, schema, file, fingerprintDetail, changed: queries.filter((query) => query.status === 'changed').length };
}

async function replayQuery(query: QueryRecord, connector: Connector, timeoutMs: number): Promise<ReplayedQuery> {
  const base = { id: query.id, step: query.step };
  const recorded = query.result;
  const maxRows = recorded ? (recorded.truncated ? Math.max(1, recorded.rowCount) : Math.max(recorded.rowCount + 1, fallbackRowCap)) : fallbackRowCap;
  let current: QueryResult;
  try {
    current = await connector.query(query.text, { maxRows, timeoutMs, ...(query.params ? { params: query.params } : {}) });
  } catch (caught) {
    const error = WorkbenchError.from(caught);
    if (query.error && query.error.code === error.code) return { ...base, status: 'unchanged', detail: `failed then and now (${error.code})` };
    return { ...base, status: 'changed', detail: `${recorded ? `${plural(recorded.rowCount, 'row')} then` : `failed then (${query.error?.code ?? 'no result'})`}, fails now (${error.code}: ${error.message})` };
  }
  if (!recorded) return { ...base, status: 'changed', detail: `failed then (${query.error?.code ?? 'no result'}), returns ${plural(current.rowCount, 'row')} now` };
  const recordedDigest = query.digest ?? resultDigest(recorded);
  const currentDigest = resultDigest(current);
  if (currentDigest === recordedDigest) return { ...base, status: 'unchanged', detail: `${plural(current.rowCount, 'row')}, sha256 ${shortHash(currentDigest)}` };
  if (sameRowsAnyOrder(recorded, current)) return { ...base, status: 'reordered', detail: `the same ${plural(current.rowCount, 'row')} in another order (the query has no ORDER BY)` };
  return { ...base, status: 'changed', detail: describeChange(recorded, current) };
}

function sameRowsAnyOrder(before: QueryResult, after: QueryResult): boolean {
  if (canonicalJson(before.columns) !== canonicalJson(after.columns) || before.rows.length !== after.rows.length) return false;
  const sorted = (result: QueryResult): string[] => result.rows.map((row) => JSON.stringify(row)).sort();
  return JSON.stringify(sorted(before)) === JSON.stringify(sorted(after));
}

/** The change in words: columns, row count, and the first row that differs. */
export function describeChange(before: QueryResult, after: QueryResult): string {
  const names = (result: QueryResult): string => result.columns.map((column) => column.name).join(', ');
  if (names(before) !== names(after)) return `columns were ${names(before)}, are ${names(after)} now`;
  const counts = before.rowCount === after.rowCount ? plural(after.rowCount, 'row') : `${plural(before.rowCount, 'row')} then, ${plural(after.rowCount, 'row')} now`;
  const row = (values: QueryResult['rows'][number] | undefined): string => (values ? values.map((value) => (value === null ? 'NULL' : String(value))).join(' | ') : '(no row)');
  for (let index = 0; index < Math.max(before.rows.length, after.rows.length); index++) {
    if (JSON.stringify(before.rows[index]) !== JSON.stringify(after.rows[index])) {
      return `${counts}; row ${index + 1} was ${clip(row(before.rows[index]))}, is ${clip(row(after.rows[index]))} now`;
    }
  }
  return `${counts}; the column types changed`;
}

function clip(text: string): string {
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}
