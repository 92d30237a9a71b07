import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectionFingerprint, databaseFilePath, fileDigest, schemaHash } from '../../../src-main/audit/connection-fingerprint';
import { addRunDetails, runDetails } from '../../../src-main/engine/run-details';
import type { SchemaInfo } from '../../../src-main/contract/data';
import { sampleEvents } from './bundle-fixture';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();
const schema: SchemaInfo = {
  kind: 'relational',
  tables: [
    { name: 'store', kind: 'table', rowCount: 4, columns: [{ name: 'id', type: 'INTEGER', nullable: false, primaryKey: 1 }] },
    { name: 'region', kind: 'table', rowCount: 2, columns: [{ name: 'name', type: 'TEXT', nullable: true, primaryKey: 0 }] },
  ],
};

describe('connection fingerprints', () => {
  it('hash the schema structure, not the row counts or the table order', () => {
    const grown: SchemaInfo = { kind: 'relational', tables: schema.kind === 'relational' ? [...schema.tables].reverse().map((table) => ({ ...table, rowCount: (table.rowCount ?? 0) + 10 })) : [] };
    expect(schemaHash(grown)).toBe(schemaHash(schema));
    const renamed: SchemaInfo = { kind: 'relational', tables: schema.kind === 'relational' ? schema.tables.map((table) => ({ ...table, name: `${table.name}_x` })) : [] };
    expect(schemaHash(renamed)).not.toBe(schemaHash(schema));
  });

  it('hash a database file by its bytes, and a folder by its files in name order', async () => {
    const dir = tempDir();
    const file = join(dir, 'db.sqlite');
    writeFileSync(file, 'SQLite format 3\0 some bytes');
    expect(await fileDigest(file)).toEqual({ hash: createHash('sha256').update('SQLite format 3\0 some bytes').digest('hex'), bytes: 27 });
    const folder = join(dir, 'kuzu');
    mkdirSync(join(folder, 'sub'), { recursive: true });
    writeFileSync(join(folder, 'b'), 'two');
    writeFileSync(join(folder, 'sub', 'a'), 'one');
    const first = await fileDigest(folder);
    expect(first.bytes).toBe(6);
    writeFileSync(join(folder, 'sub', 'a'), 'One');
    expect((await fileDigest(folder)).hash).not.toBe(first.hash);
    expect(await connectionFingerprint({ schema, filePath: null })).toEqual({ schemaHash: schemaHash(schema), fileHash: null, fileBytes: null });
  });

  it('know which engines keep their data in files', () => {
    expect(databaseFilePath({ engine: 'sqlite', path: '/d.sqlite' } as { engine: string })).toBe('/d.sqlite');
    expect(databaseFilePath({ engine: 'postgres', url: 'postgres://h/d' } as { engine: string })).toBeNull();
  });

  it('are added, with the model settings, to the run-start event only', async () => {
    const dir = tempDir();
    const path = join(dir, 'd.sqlite');
    writeFileSync(path, 'data');
    const [start, next] = sampleEvents();
    const enrich = await runDetails({ connector: { schema: async () => schema }, target: { engine: 'sqlite', path } as { engine: string }, settings: { baseUrl: 'http://user:secret@127.0.0.1:9/v1/', model: 'm', temperature: 0, maxTokens: 100 } });
    const enriched = enrich(start as NonNullable<typeof start>);
    expect(enriched.type === 'run-start' && enriched.model).toMatchObject({ endpoint: 'http://127.0.0.1:9/v1', name: 'm', temperature: 0, maxTokens: 100 });
    expect(enriched.type === 'run-start' && enriched.connection.fingerprint?.fileHash).toBe(createHash('sha256').update('data').digest('hex'));
    expect(enrich(next as NonNullable<typeof next>)).toBe(next);
    const failing = await runDetails({ connector: { schema: async () => Promise.reject(new Error('no schema')) }, target: { engine: 'sqlite' }, settings: null });
    expect(failing(start as NonNullable<typeof start>)).toEqual(addRunDetails(start as NonNullable<typeof start>, { fingerprint: null, settings: null }));
  });
});
