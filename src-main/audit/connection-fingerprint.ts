import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { SchemaInfo } from '../contract/data';
import type { ConnectionFingerprint } from '../contract/run';
import { jsonDigest } from './digest';

export type { ConnectionFingerprint };

/** Engines whose database is a file (or a folder of files) the workbench can hash. */
const fileEngines = new Set(['sqlite', 'duckdb', 'kuzu']);

/**
 * The database file of a connection target, or null for server databases. Written against the
 * target's shape rather than its type so that engines added to the contract later still fit.
 */
export function databaseFilePath(target: { engine: string }): string | null {
  if (!fileEngines.has(target.engine)) return null;
  const path = (target as { path?: unknown }).path;
  return typeof path === 'string' && path !== '' ? path : null;
}

/**
 * sha256 of the schema's structure: tables (or labels and relationship types) in name order
 * with their columns in declared order. Row counts are left out on purpose — they change with
 * every insert, and a schema hash that moves with the data would say "the schema changed" when
 * it did not; data changes are what the file hash and `dwb verify --replay` are for.
 */
export function schemaHash(schema: SchemaInfo): string {
  return jsonDigest(schemaStructure(schema));
}

type GraphElement = Extract<SchemaInfo, { kind: 'graph' }>['labels'][number];

function schemaStructure(schema: SchemaInfo): unknown {
  const byName = <T extends { name: string }>(items: T[]): T[] => [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (schema.kind === 'relational') {
    return { kind: 'relational', tables: byName(schema.tables).map(({ rowCount: _rowCount, ...table }) => table) };
  }
  const element = ({ count: _count, ...rest }: GraphElement) => ({
    ...rest,
    properties: byName(rest.properties),
    ...(rest.endpoints ? { endpoints: [...rest.endpoints].sort() } : {}),
  });
  return { kind: 'graph', labels: byName(schema.labels).map(element), relationshipTypes: byName(schema.relationshipTypes).map(element) };
}

/**
 * sha256 of a file's bytes, streamed so a large database is never held in memory. A folder
 * (some engines keep a database as several files) hashes each file's relative path and bytes
 * in path order, so the same folder always gives the same hash.
 */
export async function fileDigest(path: string): Promise<{ hash: string; bytes: number }> {
  const hash = createHash('sha256');
  const info = await stat(path);
  if (info.isFile()) {
    await feed(hash, path);
    return { hash: hash.digest('hex'), bytes: info.size };
  }
  let bytes = 0;
  for (const relative of await filesUnder(path)) {
    hash.update(`${relative}\0`);
    await feed(hash, join(path, relative));
    bytes += (await stat(join(path, relative))).size;
  }
  return { hash: hash.digest('hex'), bytes };
}

async function filesUnder(root: string, prefix = ''): Promise<string[]> {
  const entries = await readdir(join(root, prefix), { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) files.push(...(await filesUnder(root, relative)));
    else if (entry.isFile()) files.push(relative);
  }
  return files;
}

function feed(hash: Hash, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve());
  });
}

/** The fingerprint recorded in a run's `run-start` event. */
export async function connectionFingerprint(input: { schema: SchemaInfo; filePath: string | null }): Promise<ConnectionFingerprint> {
  const file = input.filePath ? await fileDigest(input.filePath) : null;
  return { schemaHash: schemaHash(input.schema), fileHash: file?.hash ?? null, fileBytes: file?.bytes ?? null };
}
