import type { LbugValue, NodeID } from '@ladybugdb/core';

import type { CellValue } from '../../contract/data';
import { binaryCell } from '../shared/binary-cell';
import { jsonCell, scalarJson, type JsonValue } from '../shared/json-cell';

function nodeIdText(id: NodeID | null): string | null {
  return id === null ? null : `${id.table}:${id.offset}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Own properties of a node or relationship, without LadybugDB's underscore bookkeeping keys. */
function properties(value: Record<string, unknown>): { [key: string]: JsonValue } {
  const json: { [key: string]: JsonValue } = {};
  for (const [key, entry] of Object.entries(value)) {
    if (!key.startsWith('_')) json[key] = toJson(entry);
  }
  return json;
}

/** Any value from LadybugDB's Node binding as plain JSON: nodes, relationships, paths, dates, blobs. */
function toJson(value: unknown): JsonValue {
  const scalar = scalarJson(value);
  if (scalar !== undefined) return scalar;
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Uint8Array) return binaryCell(value);
  if (Array.isArray(value)) return value.map(toJson);
  if (!isRecord(value)) return String(value);
  if ('_nodes' in value && '_rels' in value) {
    return { nodes: toJson(value._nodes), relationships: toJson(value._rels) };
  }
  if ('_src' in value && '_dst' in value) {
    return {
      id: nodeIdText((value._id as NodeID | null) ?? null),
      type: toJson(value._label),
      start: nodeIdText(value._src as NodeID | null),
      end: nodeIdText(value._dst as NodeID | null),
      properties: properties(value),
    };
  }
  if ('_label' in value && '_id' in value) {
    return { id: nodeIdText(value._id as NodeID | null), label: toJson(value._label), properties: properties(value) };
  }
  const json: { [key: string]: JsonValue } = {};
  for (const [key, entry] of Object.entries(value)) json[key] = toJson(entry);
  return json;
}

/**
 * A result cell. Scalars stay scalars; DATE columns keep only the date; graph elements, lists
 * and structs become compact JSON text. LadybugDB's Node binding hands INT64 over as a JS number,
 * so INT64 values beyond 2^53 have already lost digits (cast to STRING in the query to keep them).
 */
export function toLadybugCell(value: LbugValue | undefined, type: string): CellValue {
  if (value instanceof Date && type === 'DATE') return value.toISOString().slice(0, 10);
  return jsonCell(toJson(value));
}
