import { createHash } from 'node:crypto';
import { documentLimits, type DocumentSummary, type RunDocument } from '../contract/documents';
import { WorkbenchError } from '../contract/errors';
import type { AppDatabase } from './app-database';
import type { Environment } from './clock';

interface DocumentRow {
  id: string;
  notebook_id: string;
  name: string;
  text: string;
  bytes: number;
  sha256: string;
  added_at: string;
  deleted_at: string | null;
}

/**
 * A file's bytes read as a document's text, or the reason it cannot be one: empty, over the
 * size limit, binary (a NUL byte, as in PDFs, images and archives) or not UTF-8. A leading
 * byte-order mark is dropped; line endings are kept as written.
 */
export function readDocumentBytes(name: string, bytes: Uint8Array): string {
  if (bytes.length === 0) throw new WorkbenchError('invalid-request', `"${name}" is empty: attach a plain-text or Markdown file with some text`);
  if (bytes.length > documentLimits.maxBytes) {
    throw new WorkbenchError('invalid-request', `"${name}" is ${bytes.length.toLocaleString('en-US')} bytes; documents are limited to ${documentLimits.maxBytes.toLocaleString('en-US')} bytes (attach an excerpt)`);
  }
  if (bytes.includes(0)) throw new WorkbenchError('invalid-request', `"${name}" looks binary (it contains NUL bytes): attach a plain-text or Markdown file, not a PDF, image or archive`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new WorkbenchError('invalid-request', `"${name}" is not UTF-8 text: save it as UTF-8 and attach it again`);
  }
  text = text.replace(/^\uFEFF/, '');
  if (text.trim() === '') throw new WorkbenchError('invalid-request', `"${name}" has only white space: attach a file with some text`);
  return text;
}

/** A file name kept as the document's name: its last path part, control characters removed, bounded. */
export function documentName(name: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  const base = (name.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  if (base === '') throw new WorkbenchError('invalid-request', 'A document needs a name');
  return base.slice(0, documentLimits.maxName);
}

/**
 * The documents attached to notebooks, in the workspace database. Removing one moves it to the
 * trash (`deleted_at`), from where it can be restored; emptying the trash, or removing its
 * notebook for good, deletes it.
 */
export class DocumentStore {
  constructor(
    private readonly database: AppDatabase,
    private readonly environment: Environment,
  ) {}

  list(notebookId: string): DocumentSummary[] {
    return (this.database.prepare('SELECT * FROM notebook_documents WHERE notebook_id = ? AND deleted_at IS NULL ORDER BY added_at, rowid').all(notebookId) as DocumentRow[]).map(toSummary);
  }

  get(id: string): DocumentSummary & { text: string } {
    const row = this.database.prepare('SELECT * FROM notebook_documents WHERE id = ? AND deleted_at IS NULL').get(id) as DocumentRow | undefined;
    if (!row) throw new WorkbenchError('not-found', `No document ${id}`);
    return { ...toSummary(row), text: row.text };
  }

  /** The notebook's documents as a run receives them, in the order they were attached. */
  forRun(notebookId: string): RunDocument[] {
    return (this.database.prepare('SELECT name, text FROM notebook_documents WHERE notebook_id = ? AND deleted_at IS NULL ORDER BY added_at, rowid').all(notebookId) as { name: string; text: string }[]).map((row) => ({ name: row.name, text: row.text }));
  }

  /** Attaches a file's bytes to a notebook (checked by `readDocumentBytes`); a second file of the same name is refused. */
  add(notebookId: string, rawName: string, bytes: Uint8Array): DocumentSummary {
    const notebook = this.database.prepare('SELECT id FROM notebooks WHERE id = ? AND deleted_at IS NULL').get(notebookId);
    if (!notebook) throw new WorkbenchError('not-found', `No notebook ${notebookId}`);
    const name = documentName(rawName);
    const text = readDocumentBytes(name, bytes);
    this.checkRoomFor(notebookId, name);
    const id = this.environment.newId();
    const sha256 = createHash('sha256').update(text).digest('hex');
    this.database
      .prepare('INSERT INTO notebook_documents (id, notebook_id, name, text, bytes, sha256, added_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(id, notebookId, name, text, bytes.length, sha256, this.environment.now());
    return toSummary(this.database.prepare('SELECT * FROM notebook_documents WHERE id = ?').get(id) as DocumentRow);
  }

  /** A duplicated notebook takes its source's documents with it. */
  copy(fromNotebookId: string, toNotebookId: string): void {
    for (const row of this.database.prepare('SELECT * FROM notebook_documents WHERE notebook_id = ? AND deleted_at IS NULL ORDER BY added_at, rowid').all(fromNotebookId) as DocumentRow[]) {
      this.database
        .prepare('INSERT INTO notebook_documents (id, notebook_id, name, text, bytes, sha256, added_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(this.environment.newId(), toNotebookId, row.name, row.text, row.bytes, row.sha256, row.added_at);
    }
  }

  /** Moves a document to the trash; `restore` (or the trash's restore) brings it back. Returns its notebook. */
  remove(id: string): string {
    const { notebookId } = this.get(id);
    this.database.prepare('UPDATE notebook_documents SET deleted_at = ? WHERE id = ?').run(this.environment.now(), id);
    return notebookId;
  }

  /**
   * Puts a removed document back in its notebook, in its place by attachment time. Refused,
   * with the reason, when its name has been attached again meanwhile or the notebook is full.
   */
  restore(id: string): string {
    const row = this.database.prepare('SELECT * FROM notebook_documents WHERE id = ? AND deleted_at IS NOT NULL').get(id) as DocumentRow | undefined;
    if (!row) throw new WorkbenchError('not-found', `No document ${id} in the trash`);
    this.checkRoomFor(row.notebook_id, row.name);
    this.database.prepare('UPDATE notebook_documents SET deleted_at = NULL WHERE id = ?').run(id);
    return row.notebook_id;
  }

  private checkRoomFor(notebookId: string, name: string): void {
    const existing = this.list(notebookId);
    if (existing.length >= documentLimits.perNotebook) throw new WorkbenchError('invalid-request', `A notebook holds at most ${documentLimits.perNotebook} documents: remove one first`);
    if (existing.some((document) => document.name === name)) throw new WorkbenchError('conflict', `"${name}" is already attached to this notebook: remove it first to replace it`);
  }
}

function toSummary(row: DocumentRow): DocumentSummary {
  return { id: row.id, notebookId: row.notebook_id, name: row.name, chars: row.text.length, bytes: row.bytes, sha256: row.sha256, addedAt: row.added_at };
}
