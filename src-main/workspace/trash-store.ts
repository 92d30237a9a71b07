import type { AppDatabase } from './app-database';
import { WorkbenchError } from '../contract/errors';
import type { CellKind } from '../contract/notebook';
import type { TrashKind, TrashListing } from '../contract/trash';

const excerptLength = 160;

/**
 * The workspace's trash: deleting marks a row (`deleted_at`); here the marked rows are listed,
 * put back, or removed for good. Each method is one transaction.
 */
export class TrashStore {
  constructor(private readonly database: AppDatabase) {}

  /** The database's part of the listing; the workbench adds the deleted playbooks (files, not rows). */
  list(): Omit<TrashListing, 'playbooks'> {
    const notebooks = this.database
      .prepare(
        `SELECT n.id, n.title, n.deleted_at AS deletedAt,
                (SELECT count(*) FROM cells c WHERE c.notebook_id = n.id AND c.deleted_at IS NULL) AS cellCount
           FROM notebooks n WHERE n.deleted_at IS NOT NULL ORDER BY n.deleted_at DESC`,
      )
      .all() as TrashListing['notebooks'];
    // A cell of a deleted notebook goes and comes back with its notebook, so it is not listed alone.
    const cells = (
      this.database
        .prepare(
          `SELECT c.id, c.notebook_id AS notebookId, n.title AS notebookTitle, c.kind, c.source, c.deleted_at AS deletedAt
             FROM cells c JOIN notebooks n ON n.id = c.notebook_id
            WHERE c.deleted_at IS NOT NULL AND n.deleted_at IS NULL ORDER BY c.deleted_at DESC`,
        )
        .all() as { id: string; notebookId: string; notebookTitle: string; kind: CellKind; source: string; deletedAt: string }[]
    ).map(({ source, ...cell }) => ({ ...cell, excerpt: source.replace(/\s+/g, ' ').trim().slice(0, excerptLength) }));
    const connections = (
      this.database
        .prepare('SELECT id, name, engine, deleted_at AS deletedAt, password_forgotten FROM connections WHERE deleted_at IS NOT NULL ORDER BY deleted_at DESC')
        .all() as (Omit<TrashListing['connections'][number], 'passwordForgotten'> & { password_forgotten: number })[]
    ).map(({ password_forgotten, ...connection }) => ({ ...connection, passwordForgotten: password_forgotten === 1 }));
    // Like cells, a document of a deleted notebook goes and comes back with its notebook.
    const documents = this.database
      .prepare(
        `SELECT d.id, d.notebook_id AS notebookId, n.title AS notebookTitle, d.name, length(d.text) AS chars, d.deleted_at AS deletedAt
           FROM notebook_documents d JOIN notebooks n ON n.id = d.notebook_id
          WHERE d.deleted_at IS NOT NULL AND n.deleted_at IS NULL ORDER BY d.deleted_at DESC`,
      )
      .all() as TrashListing['documents'];
    return { notebooks, cells, connections, documents };
  }

  /** A connection's name while it is in the workspace or its trash; null once it is gone for good. */
  connectionName(id: string): string | null {
    const row = this.database.prepare('SELECT name FROM connections WHERE id = ?').get(id) as { name: string } | undefined;
    return row?.name ?? null;
  }

  /** Puts a notebook, cell or connection back (a document goes back through `DocumentStore.restore`, which checks its name is free). */
  restore(kind: Exclude<TrashKind, 'document' | 'playbooks'>, id: string): void {
    const table = { notebook: 'notebooks', cell: 'cells', connection: 'connections' }[kind];
    const result = this.database.prepare(`UPDATE ${table} SET deleted_at = NULL WHERE id = ? AND deleted_at IS NOT NULL`).run(id);
    if (result.changes === 0) throw new WorkbenchError('not-found', `No ${kind} ${id} in the trash`);
  }

  /** Removes everything in the trash except notebooks whose ids are in `busy` (a run is writing to them). */
  empty(busy: ReadonlySet<string>): { notebooks: number; cells: number; connections: number; documents: number; kept: number } {
    return this.database.transaction(() => {
      const deleted = (this.database.prepare('SELECT id FROM notebooks WHERE deleted_at IS NOT NULL').all() as { id: string }[]).map((row) => row.id);
      const doomed = deleted.filter((id) => !busy.has(id));
      let notebooks = 0;
      let cells = 0;
      for (const id of doomed) {
        this.database.prepare('DELETE FROM run_events WHERE run_id IN (SELECT id FROM runs WHERE notebook_id = ?)').run(id);
        this.database.prepare('DELETE FROM run_transcripts WHERE run_id IN (SELECT id FROM runs WHERE notebook_id = ?)').run(id);
        this.database.prepare('DELETE FROM runs WHERE notebook_id = ?').run(id);
        cells += this.database.prepare('DELETE FROM cells WHERE notebook_id = ?').run(id).changes;
        notebooks += this.database.prepare('DELETE FROM notebooks WHERE id = ?').run(id).changes;
      }
      cells += this.database.prepare('DELETE FROM cells WHERE deleted_at IS NOT NULL AND notebook_id IN (SELECT id FROM notebooks WHERE deleted_at IS NULL)').run().changes;
      const documents = this.database
        .prepare('DELETE FROM notebook_documents WHERE deleted_at IS NOT NULL AND notebook_id IN (SELECT id FROM notebooks WHERE deleted_at IS NULL)')
        .run().changes;
      // A removed connection's query history waits in the trash with it; it goes for good with it.
      this.database.prepare('DELETE FROM query_history WHERE connection_id IN (SELECT id FROM connections WHERE deleted_at IS NOT NULL)').run();
      const connections = this.database.prepare('DELETE FROM connections WHERE deleted_at IS NOT NULL').run().changes;
      return { notebooks, cells, connections, documents, kept: deleted.length - doomed.length };
    })();
  }
}
