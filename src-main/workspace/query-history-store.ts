import { WorkbenchError } from '../contract/errors';
import { queryHistoryLimit, type QueryHistoryEntry } from '../contract/query-history';
import type { AppDatabase } from './app-database';

export type NewQueryHistoryEntry = Omit<QueryHistoryEntry, 'id' | 'notebookTitle'>;

interface HistoryRow {
  id: number;
  connectionId: string;
  text: string;
  ranAt: string;
  durationMs: number;
  rowCount: number | null;
  errorCode: string | null;
  notebookId: string | null;
  notebookTitle: string | null;
  cellId: string | null;
}

/**
 * Every query a query cell ran, per connection, in the workspace database: the analyst's
 * DBeaver-style history. Bounded to the newest `limit` entries of the workspace, so a long-lived
 * workspace does not grow without end. Entries of a connection in the trash stay (its restore
 * brings them back) but are not listed; emptying the trash deletes them (TrashStore.empty).
 */
export class QueryHistoryStore {
  constructor(
    private readonly database: AppDatabase,
    private readonly limit = queryHistoryLimit,
  ) {}

  record(entry: NewQueryHistoryEntry): void {
    this.database.transaction(() => {
      this.database
        .prepare(
          `INSERT INTO query_history (connection_id, text, ran_at, duration_ms, row_count, error_code, notebook_id, cell_id)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(entry.connectionId, entry.text, entry.ranAt, entry.durationMs, entry.rowCount, entry.errorCode, entry.notebookId, entry.cellId);
      this.database.prepare('DELETE FROM query_history WHERE seq <= (SELECT seq FROM query_history ORDER BY seq DESC LIMIT 1 OFFSET ?)').run(this.limit);
    })();
  }

  /** Newest first; `text` keeps entries holding it, literally and case-insensitively (instr, no wildcards). */
  list(query: { connectionId: string; text?: string | undefined; limit: number }): { entries: QueryHistoryEntry[]; more: boolean } {
    const connection = this.database.prepare('SELECT deleted_at AS deletedAt FROM connections WHERE id = ?').get(query.connectionId) as { deletedAt: string | null } | undefined;
    if (!connection) throw new WorkbenchError('not-found', `No connection ${query.connectionId}`);
    if (connection.deletedAt !== null) throw new WorkbenchError('not-found', 'This connection is in the trash: restore it to see its query history');
    const needle = query.text?.toLowerCase() ?? '';
    const rows = this.database
      .prepare(
        `SELECT h.seq AS id, h.connection_id AS connectionId, h.text, h.ran_at AS ranAt, h.duration_ms AS durationMs, h.row_count AS rowCount,
                h.error_code AS errorCode, n.id AS notebookId, n.title AS notebookTitle, c.id AS cellId
           FROM query_history h
           LEFT JOIN notebooks n ON n.id = h.notebook_id AND n.deleted_at IS NULL
           LEFT JOIN cells c ON c.id = h.cell_id AND c.deleted_at IS NULL AND n.id IS NOT NULL
          WHERE h.connection_id = ? AND (? = '' OR instr(lower(h.text), ?) > 0)
          ORDER BY h.seq DESC
          LIMIT ?`,
      )
      .all(query.connectionId, needle, needle, query.limit + 1) as HistoryRow[];
    return { entries: rows.slice(0, query.limit), more: rows.length > query.limit };
  }
}
