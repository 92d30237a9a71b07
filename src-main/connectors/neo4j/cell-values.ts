import neo4j, { type Integer, type Node, type Path, type Relationship } from 'neo4j-driver';

import type { CellValue } from '../../contract/data';
import { jsonCell, scalarJson, type JsonValue } from '../shared/json-cell';

/** Integers beyond 2^53 become strings so no digit is lost in JSON. */
function integerValue(value: Integer | bigint): number | string {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  return value.inSafeRange() ? value.toNumber() : value.toString();
}

function nodeJson(node: Node): JsonValue {
  return { elementId: node.elementId, labels: node.labels, properties: toJson(node.properties) };
}

function relationshipJson(relationship: Relationship): JsonValue {
  return {
    elementId: relationship.elementId,
    type: relationship.type,
    start: relationship.startNodeElementId,
    end: relationship.endNodeElementId,
    properties: toJson(relationship.properties),
  };
}

function pathJson(path: Path): JsonValue {
  return {
    nodes: [path.start, ...path.segments.map((segment) => segment.end)].map(nodeJson),
    relationships: path.segments.map((segment) => relationshipJson(segment.relationship)),
  };
}

function isTemporal(value: unknown): boolean {
  return (
    neo4j.isDate(value) || neo4j.isDateTime(value) || neo4j.isLocalDateTime(value) ||
    neo4j.isTime(value) || neo4j.isLocalTime(value) || neo4j.isDuration(value)
  );
}

/** Any driver value as plain JSON: graph elements, temporals (ISO text), points, bytes. */
function toJson(value: unknown): JsonValue {
  const scalar = scalarJson(value);
  if (scalar !== undefined) return scalar;
  if (typeof value === 'bigint' || neo4j.isInt(value)) return integerValue(value as Integer | bigint);
  if (neo4j.isNode(value)) return nodeJson(value as Node);
  if (neo4j.isRelationship(value)) return relationshipJson(value as Relationship);
  if (neo4j.isPath(value)) return pathJson(value as Path);
  if (isTemporal(value)) return String(value);
  if (neo4j.isPoint(value)) {
    const point = value as { srid: Integer | number; x: number; y: number; z?: number };
    const json: { [key: string]: JsonValue } = { srid: toJson(point.srid), x: point.x, y: point.y };
    if (point.z !== undefined) json.z = point.z;
    return json;
  }
  if (value instanceof Uint8Array) return `0x${Buffer.from(value).toString('hex')}`;
  if (Array.isArray(value)) return value.map(toJson);
  if (typeof value === 'object' && value !== null) {
    const json: { [key: string]: JsonValue } = {};
    for (const [key, entry] of Object.entries(value)) json[key] = toJson(entry);
    return json;
  }
  return String(value);
}

/** A result cell: scalars stay scalars; graph elements, lists and maps become compact JSON text. */
export function toNeo4jCell(value: unknown): CellValue {
  return jsonCell(toJson(value));
}

/** A readable type name for a column, from its first non-null value (Cypher results are untyped). */
export function neo4jTypeName(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (neo4j.isInt(value) || typeof value === 'bigint') return 'Integer';
  if (typeof value === 'number') return 'Float';
  if (typeof value === 'string') return 'String';
  if (typeof value === 'boolean') return 'Boolean';
  if (neo4j.isNode(value)) return 'Node';
  if (neo4j.isRelationship(value)) return 'Relationship';
  if (neo4j.isPath(value)) return 'Path';
  if (neo4j.isDate(value)) return 'Date';
  if (neo4j.isDateTime(value)) return 'DateTime';
  if (neo4j.isLocalDateTime(value)) return 'LocalDateTime';
  if (neo4j.isTime(value)) return 'Time';
  if (neo4j.isLocalTime(value)) return 'LocalTime';
  if (neo4j.isDuration(value)) return 'Duration';
  if (neo4j.isPoint(value)) return 'Point';
  if (value instanceof Uint8Array) return 'ByteArray';
  if (Array.isArray(value)) return 'List';
  return 'Map';
}

/**
 * Parameters for the driver. JS numbers are sent as Cypher floats, which `LIMIT $n` or an
 * integer property comparison would not accept; whole numbers are sent as Cypher integers.
 */
export function toNeo4jParameter(value: unknown): unknown {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return neo4j.int(value);
  if (typeof value === 'bigint') return neo4j.int(value.toString());
  if (Array.isArray(value)) return value.map(toNeo4jParameter);
  if (value !== null && typeof value === 'object' && !(value instanceof Date) && !(value instanceof Uint8Array)) {
    const converted: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(value)) converted[key] = toNeo4jParameter(entry);
    return converted;
  }
  return value;
}
