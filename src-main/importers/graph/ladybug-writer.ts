import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openLadybugConnector } from '../../connectors/ladybug';
import { parseCypherDump, type GraphDump } from '../../dqa/cypher-dump';
import { writeLadybugDatabase } from '../../dqa/ladybug-import';
import type { DumpFile, DumpSource } from '../dump-files';
import type { DumpWriter } from '../dump-writer';
import type { CreatedPart, ImportRecord } from '../import-outcome';
import { parseParts } from '../import-outcome';
import { notMadeByImport } from '../target-guard';
import { planGraph, recordLabel, recordProperties } from './graph-plan';

/** LadybugDB keeps a write-ahead log beside the database file while it is open. */
function removeDatabaseFiles(path: string): void {
  rmSync(path, { force: true, recursive: true });
  rmSync(`${path}.wal`, { force: true });
}

/**
 * `ladybug:DIR` (or `kuzu:DIR`): one LadybugDB database per graph dump, `DIR/<dump>.lbug`. The translation of the
 * dumps' Neo4j Cypher into what LadybugDB needs (a node table per label keyed by `import_order`,
 * a relationship table per type declaring each label pair it connects, one type per property)
 * is the one `dwb dqa solve` uses (src-main/dqa/ladybug-import.ts); the import record is one more
 * node of label `_DwbImport`. Built as `<file>.partial` and renamed into place.
 */
export class LadybugFolderWriter implements DumpWriter {
  constructor(private readonly folder: string) {
    mkdirSync(folder, { recursive: true });
  }

  location(dump: DumpFile): string {
    return join(this.folder, `${dump.name}.lbug`);
  }

  /** Read through the read-only connector (its own process), which leaves no lock behind once closed. */
  async findRecord(dump: DumpFile): Promise<ImportRecord | null> {
    const path = this.location(dump);
    if (!existsSync(path)) return null;
    const connector = await openLadybugConnector({ path, bufferPoolBytes: 64 * 1024 * 1024 });
    try {
      const tables = await connector.query('CALL show_tables() RETURN name', { maxRows: 10_000, timeoutMs: 60_000 });
      if (!tables.rows.some((row) => row[0] === recordLabel)) return notMadeByImport(path);
      const found = await connector.query(`MATCH (m:${recordLabel}) RETURN m.sha256, m.parts LIMIT 1`, { maxRows: 1, timeoutMs: 60_000 });
      const [sha256, parts] = found.rows[0] ?? [];
      return typeof sha256 === 'string' ? { sha256, parts: parseParts(parts) } : notMadeByImport(path);
    } finally {
      await connector.close();
    }
  }

  async write(dump: DumpSource): Promise<CreatedPart[]> {
    const graph = parseCypherDump(dump.text, dump.path);
    const { parts } = planGraph(graph, dump.path);
    const withRecord: GraphDump = {
      nodes: [...graph.nodes, { variable: null, labels: [recordLabel], properties: recordProperties(dump, parts) }],
      relationships: graph.relationships,
    };
    const path = this.location(dump);
    const building = `${path}.partial`;
    removeDatabaseFiles(building);
    await writeLadybugDatabase(withRecord, building, dump.path);
    rmSync(`${path}.wal`, { force: true });
    renameSync(building, path);
    return parts;
  }

  async close(): Promise<void> {}
}
