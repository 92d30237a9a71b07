import { WorkbenchError } from '../contract/errors';
import {
  cellOutputSchema,
  defaultQuerySettings,
  readCellData,
  type Author,
  type Cell,
  type CellKind,
  type CellKindData,
  type CellOutput,
  type Notebook,
  type NotebookSummary,
  type Provenance,
  type QuerySettings,
} from '../contract/notebook';
import type { QueryDisplay } from '../contract/query-display';
import type { AppDatabase } from './app-database';
import type { Environment } from './clock';

interface CellRow {
  id: string;
  notebook_id: string;
  position: number;
  kind: CellKind;
  author: Author;
  source: string;
  connection_id: string | null;
  settings: string;
  provenance: string;
  data: string;
  output: string | null;
  created_at: string;
  updated_at: string;
}

interface NotebookRow {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
  cell_count: number;
}

export interface NewCell {
  notebookId: string;
  afterCellId?: string | null;
  kind: CellKind;
  author: Author;
  source: string;
  connectionId?: string | null;
  settings?: QuerySettings;
  provenance?: Provenance;
  data?: Record<string, unknown>;
}

export interface CellEdit {
  id: string;
  source?: string;
  connectionId?: string | null;
  settings?: QuerySettings;
  /** Only a query cell has one; it is kept in the cell's data. */
  display?: QueryDisplay;
}

export interface CellKindChange {
  id: string;
  kind: 'query' | 'note';
  /** The connection a query runs on; ignored for a note, which has none. */
  connectionId?: string | null;
}

/**
 * Notebooks and their cells in the workspace database. Deletion is a move to the trash
 * (`deleted_at`), so every delete can be undone; each method is one transaction.
 */
export class NotebookStore {
  constructor(
    private readonly database: AppDatabase,
    private readonly environment: Environment,
  ) {}

  list(): NotebookSummary[] {
    const rows = this.database
      .prepare(
        `SELECT n.id, n.title, n.created_at, n.updated_at,
                (SELECT count(*) FROM cells c WHERE c.notebook_id = n.id AND c.deleted_at IS NULL) AS cell_count
           FROM notebooks n WHERE n.deleted_at IS NULL ORDER BY n.updated_at DESC, n.title`,
      )
      .all() as NotebookRow[];
    return rows.map(toSummary);
  }

  get(id: string): Notebook {
    const summary = this.summary(id);
    const cells = (
      this.database
        .prepare('SELECT * FROM cells WHERE notebook_id = ? AND deleted_at IS NULL ORDER BY position')
        .all(id) as CellRow[]
    ).map(toCell);
    return { ...summary, cells };
  }

  create(title: string): Notebook {
    const id = this.environment.newId();
    const now = this.environment.now();
    this.database.prepare('INSERT INTO notebooks (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)').run(id, title, now, now);
    return this.get(id);
  }

  rename(id: string, title: string): NotebookSummary {
    this.summary(id);
    this.database.prepare('UPDATE notebooks SET title = ?, updated_at = ? WHERE id = ?').run(title, this.environment.now(), id);
    return this.summary(id);
  }

  duplicate(id: string): Notebook {
    const source = this.get(id);
    return this.database.transaction(() => {
      const copy = this.create(uniqueCopyTitle(source.title, new Set(this.list().map((n) => n.title))));
      let after: string | null = null;
      for (const cell of source.cells) {
        const inserted = this.insertCell({
          notebookId: copy.id,
          afterCellId: after,
          kind: cell.kind,
          author: cell.author,
          source: cell.source,
          connectionId: cell.connectionId,
          settings: cell.settings,
          provenance: { ...cell.provenance, derivedFrom: cell.id },
          data: cell.data,
        });
        if (cell.output) this.saveOutput(inserted.id, cell.output);
        after = inserted.id;
      }
      return this.get(copy.id);
    })();
  }

  delete(id: string): void {
    this.summary(id);
    this.database.prepare('UPDATE notebooks SET deleted_at = ? WHERE id = ?').run(this.environment.now(), id);
  }

  restore(id: string): NotebookSummary {
    const result = this.database.prepare('UPDATE notebooks SET deleted_at = NULL WHERE id = ?').run(id);
    if (result.changes === 0) throw new WorkbenchError('not-found', `No notebook ${id} in the trash`);
    return this.summary(id);
  }

  insertCell(cell: NewCell): Cell {
    this.summary(cell.notebookId);
    const id = this.environment.newId();
    const now = this.environment.now();
    this.database.transaction(() => {
      const position = this.positionAfter(cell.notebookId, cell.afterCellId);
      this.database
        .prepare('UPDATE cells SET position = position + 1 WHERE notebook_id = ? AND position >= ?')
        .run(cell.notebookId, position);
      this.database
        .prepare(
          `INSERT INTO cells (id, notebook_id, position, kind, author, source, connection_id, settings, provenance, data, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          id,
          cell.notebookId,
          position,
          cell.kind,
          cell.author,
          cell.source,
          cell.connectionId ?? null,
          JSON.stringify(cell.settings ?? defaultQuerySettings),
          JSON.stringify(cell.provenance ?? {}),
          JSON.stringify(cell.data ?? {}),
          now,
          now,
        );
      this.touch(cell.notebookId, now);
    })();
    return this.getCell(id);
  }

  updateCell(edit: CellEdit): Cell {
    const existing = this.getCell(edit.id);
    if (edit.display && existing.kind !== 'query') throw new WorkbenchError('invalid-request', `Only a query cell has a table or chart to choose; this cell is a ${existing.kind} cell`);
    const now = this.environment.now();
    const data = edit.display ? { ...existing.data, display: edit.display } : existing.data;
    this.database
      .prepare('UPDATE cells SET source = ?, connection_id = ?, settings = ?, data = ?, updated_at = ? WHERE id = ?')
      .run(
        edit.source ?? existing.source,
        edit.connectionId === undefined ? existing.connectionId : edit.connectionId,
        JSON.stringify(edit.settings ?? existing.settings),
        JSON.stringify(data),
        now,
        edit.id,
      );
    this.touch(existing.notebookId, now);
    return this.getCell(edit.id);
  }

  /**
   * Turns an analyst's query into a note or a note into a query in place: the same id and
   * position, so nothing goes to the trash. The old kind's output and kind-specific data do not
   * fit the new kind and are dropped; a note has no connection, a query takes `connectionId`.
   */
  changeCellKind(change: CellKindChange): Cell {
    const existing = this.getCell(change.id);
    const convertible: readonly CellKind[] = ['query', 'note'];
    if (existing.author !== 'analyst' || !convertible.includes(existing.kind)) {
      throw new WorkbenchError('invalid-request', 'Only an analyst’s query or note can change kind');
    }
    if (existing.kind === change.kind) return existing;
    const now = this.environment.now();
    const connectionId = change.kind === 'note' ? null : (change.connectionId ?? null);
    this.database.transaction(() => {
      this.database
        .prepare("UPDATE cells SET kind = ?, connection_id = ?, data = '{}', output = NULL, updated_at = ? WHERE id = ?")
        .run(change.kind, connectionId, now, change.id);
      this.touch(existing.notebookId, now);
    })();
    return this.getCell(change.id);
  }

  moveCell(id: string, afterCellId: string | null): void {
    const cell = this.getCell(id);
    this.database.transaction(() => {
      // Take the cell out of the order, then insert it again where asked.
      this.database.prepare('UPDATE cells SET position = -1 WHERE id = ?').run(id);
      this.renumber(cell.notebookId);
      const position = this.positionAfter(cell.notebookId, afterCellId);
      this.database
        .prepare('UPDATE cells SET position = position + 1 WHERE notebook_id = ? AND position >= ? AND id <> ?')
        .run(cell.notebookId, position, id);
      this.database.prepare('UPDATE cells SET position = ? WHERE id = ?').run(position, id);
      this.touch(cell.notebookId, this.environment.now());
    })();
  }

  deleteCell(id: string): void {
    const cell = this.getCell(id);
    this.database.prepare('UPDATE cells SET deleted_at = ? WHERE id = ?').run(this.environment.now(), id);
    this.touch(cell.notebookId, this.environment.now());
  }

  restoreCell(id: string): Cell {
    const row = this.database.prepare('SELECT notebook_id FROM cells WHERE id = ? AND deleted_at IS NOT NULL').get(id) as
      | { notebook_id: string }
      | undefined;
    if (!row) throw new WorkbenchError('not-found', `No cell ${id} in the trash`);
    this.database.prepare('UPDATE cells SET deleted_at = NULL WHERE id = ?').run(id);
    this.touch(row.notebook_id, this.environment.now());
    return this.getCell(id);
  }

  /**
   * A run rewrites one of its own cells as later events add to it (Pearl's program attempts
   * gathered in one cell): the text and kind data change, the id and position stay.
   */
  rewriteRunCell(cellId: string, content: { source: string; data: Record<string, unknown> }): Cell {
    const existing = this.getCell(cellId);
    const now = this.environment.now();
    this.database.prepare('UPDATE cells SET source = ?, data = ?, updated_at = ? WHERE id = ?').run(content.source, JSON.stringify(content.data), now, cellId);
    this.touch(existing.notebookId, now);
    return this.getCell(cellId);
  }

  saveOutput(cellId: string, output: CellOutput): void {
    this.database.prepare('UPDATE cells SET output = ? WHERE id = ?').run(JSON.stringify(output), cellId);
  }

  getCell(id: string): Cell {
    const row = this.database.prepare('SELECT * FROM cells WHERE id = ? AND deleted_at IS NULL').get(id) as CellRow | undefined;
    if (!row) throw new WorkbenchError('not-found', `No cell ${id}`);
    return toCell(row);
  }

  private summary(id: string): NotebookSummary {
    const row = this.database
      .prepare(
        `SELECT n.id, n.title, n.created_at, n.updated_at,
                (SELECT count(*) FROM cells c WHERE c.notebook_id = n.id AND c.deleted_at IS NULL) AS cell_count
           FROM notebooks n WHERE n.id = ? AND n.deleted_at IS NULL`,
      )
      .get(id) as NotebookRow | undefined;
    if (!row) throw new WorkbenchError('not-found', `No notebook ${id}`);
    return toSummary(row);
  }

  /** Position a new cell takes: right after `afterCellId`, at the top for null, last when absent. */
  private positionAfter(notebookId: string, afterCellId: string | null | undefined): number {
    if (afterCellId === null) return 0;
    if (afterCellId === undefined) {
      const row = this.database
        .prepare('SELECT coalesce(max(position) + 1, 0) AS next FROM cells WHERE notebook_id = ? AND deleted_at IS NULL AND position >= 0')
        .get(notebookId) as { next: number };
      return row.next;
    }
    const after = this.getCell(afterCellId);
    if (after.notebookId !== notebookId) throw new WorkbenchError('invalid-request', 'That cell belongs to another notebook');
    const row = this.database.prepare('SELECT position FROM cells WHERE id = ?').get(afterCellId) as { position: number };
    return row.position + 1;
  }

  private renumber(notebookId: string): void {
    const ids = this.database
      .prepare('SELECT id FROM cells WHERE notebook_id = ? AND position >= 0 ORDER BY position')
      .pluck()
      .all(notebookId) as string[];
    const update = this.database.prepare('UPDATE cells SET position = ? WHERE id = ?');
    ids.forEach((cellId, index) => update.run(index, cellId));
  }

  private touch(notebookId: string, now: string): void {
    this.database.prepare('UPDATE notebooks SET updated_at = ? WHERE id = ?').run(now, notebookId);
  }
}

function toSummary(row: NotebookRow): NotebookSummary {
  return { id: row.id, title: row.title, cellCount: row.cell_count, createdAt: row.created_at, updatedAt: row.updated_at };
}

function toCell(row: CellRow): Cell {
  const output = row.output === null ? null : cellOutputSchema.safeParse(JSON.parse(row.output));
  return {
    id: row.id,
    notebookId: row.notebook_id,
    ...({ kind: row.kind, data: readCellData(row.kind, JSON.parse(row.data)) } as CellKindData),
    author: row.author,
    source: row.source,
    connectionId: row.connection_id,
    settings: JSON.parse(row.settings) as QuerySettings,
    provenance: JSON.parse(row.provenance) as Provenance,
    output: output?.success ? output.data : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function uniqueCopyTitle(title: string, taken: Set<string>): string {
  const base = `${title.replace(/ \(copy(?: \d+)?\)$/, '')} (copy`;
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? `${base})` : `${base} ${n})`;
    if (!taken.has(candidate)) return candidate;
  }
}
