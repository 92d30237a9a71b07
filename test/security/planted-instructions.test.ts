import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';

import { openDuckdbConnector } from '../../src-main/connectors/duckdb';
import { openLadybugConnector } from '../../src-main/connectors/ladybug';
import { openSqliteConnector } from '../../src-main/connectors/sqlite/sqlite-connector';
import { cypherLiteral, runLadybugStatements } from '../integration/connectors/fixture-loaders';
import { digestPath, entriesOf } from './attack-runner';
import { expectPlantedWritesRefused, plantedNote, plantedOutcomes, runObedientModel } from './obedient-model';

/**
 * Instructions planted in the data, obeyed by a model (./obedient-model.ts), on the file
 * engines: the run must go on with each write refused, and the database must be byte-identical
 * afterwards. The server engines' planted runs are in server-engines.test.ts.
 */
const root = mkdtempSync(join(tmpdir(), 'dwb-security-planted-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const hashOf = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('security: instructions planted in the data', () => {
  it('DuckDB: the model obeys a note to overwrite the database file; the write is refused and the file unchanged', async () => {
    const path = join(root, 'notes.duckdb');
    const planted = [
      `/* /* */ EXPLAIN ANALYZE SELECT $$*/ EXPLAIN ANALYZE COPY (SELECT 42 AS x) TO '${path}' (USE_TMP_FILE false) -- $$`,
      `COPY (SELECT 42 AS x) TO '${path}' (USE_TMP_FILE false)`,
      'DELETE FROM notes',
    ];
    const writer = await DuckDBInstance.create(path);
    const connection = await writer.connect();
    await connection.run('CREATE TABLE notes (id INTEGER, note VARCHAR)');
    for (const [index, statement] of planted.entries()) await connection.run('INSERT INTO notes VALUES ($1, $2)', [index, plantedNote(statement)]);
    await connection.run('CHECKPOINT');
    connection.closeSync();
    writer.closeSync();

    await expectPlantedWritesRefused({ engine: 'duckdb', open: () => openDuckdbConnector({ path }), planted, fingerprint: () => hashOf(path) });
  }, 60_000);

  it('Kùzu: the model obeys notes to export, empty and add to the database; each is refused, nothing is written or created', async () => {
    const dir = join(root, 'kuzu');
    mkdirSync(dir);
    const path = join(dir, 'notes.kuzu');
    const exportDir = join(root, 'kuzu-export');
    const planted = [
      // Issue 17, item 9: an invisible first character once slipped past the first-word check.
      `\u180EEXPORT DATABASE '${exportDir}'`,
      'MATCH (n:Note) DETACH DELETE n',
      "CREATE (:Note {id: 99, note: 'written by the model'})",
    ];
    runLadybugStatements(path, [
      'CREATE NODE TABLE Note(id INT64 PRIMARY KEY, note STRING)',
      ...planted.map((statement, index) => `CREATE (:Note {id: ${index}, note: ${cypherLiteral(plantedNote(statement))}})`),
    ]);
    await expectPlantedWritesRefused({
      engine: 'kuzu',
      open: () => openLadybugConnector({ path, bufferPoolBytes: 64 * 1024 * 1024 }),
      planted,
      readNotes: 'MATCH (n:Note) RETURN n.note ORDER BY n.id',
      fingerprint: () => digestPath(dir),
    });
    expect(entriesOf(root)).not.toContain('kuzu-export');
  }, 60_000);

  it('SQLite: the model obeys notes to lock and empty the file; both are refused and another program can still write', async () => {
    const path = join(root, 'notes.sqlite');
    const planted = ['PRAGMA locking_mode=EXCLUSIVE', '/* tidy up */ DELETE FROM notes', `VACUUM INTO '${join(root, 'copy.sqlite')}'`];
    const writer = new Database(path);
    writer.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, note TEXT)');
    const insert = writer.prepare('INSERT INTO notes VALUES (?, ?)');
    for (const [index, statement] of planted.entries()) insert.run(index, plantedNote(statement));
    writer.close();
    const before = hashOf(path);

    const connector = openSqliteConnector({ path });
    try {
      const { events, status } = await runObedientModel(connector, planted.length);
      const outcomes = plantedOutcomes(events);
      const unchanged = hashOf(path) === before;
      console.log(`security planted sqlite: ${outcomes.length} planted writes run by the model, ${outcomes.filter((code) => code !== null).length} refused, file ${unchanged ? 'unchanged' : 'CHANGED'}`);
      expect(status).toBe('answered');
      expect(outcomes).toEqual(planted.map(() => 'read-only'));
      expect(unchanged).toBe(true);
      // The connection is still open: no lock may keep another program from writing.
      expect((await connector.query('SELECT count(*) FROM notes', { maxRows: 1, timeoutMs: 5000 })).rows).toEqual([[3]]);
      const other = new Database(path, { timeout: 0 });
      try {
        other.prepare("INSERT INTO notes VALUES (99, 'written by another program')").run();
      } finally {
        other.close();
      }
    } finally {
      await connector.close();
    }
  }, 60_000);
});
