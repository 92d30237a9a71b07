import { WorkbenchError } from '../contract/errors';
import { connectionTargetSchema, type Connection, type ConnectionTarget } from '../contract/connections';
import type { SecretStore } from '../secrets/secret-store';
import type { AppDatabase } from './app-database';
import type { Environment } from './clock';

interface ConnectionRow {
  id: string;
  name: string;
  engine: Connection['engine'];
  target: string;
  created_at: string;
  updated_at: string;
}

/** Secret-store key of a connection's password. */
function passwordKey(id: string): string {
  return `connection-password:${id}`;
}

/**
 * The workspace's saved connections: targets in the app database, passwords in the secret
 * store (encrypted by the OS in the desktop app, in memory only in browser mode), so a
 * password is never written in plain text and never sent back to a client.
 */
export class ConnectionStore {
  constructor(
    private readonly database: AppDatabase,
    private readonly environment: Environment,
    private readonly secrets: SecretStore,
  ) {}

  list(): Connection[] {
    return (this.database.prepare('SELECT * FROM connections WHERE deleted_at IS NULL ORDER BY name').all() as ConnectionRow[]).map((row) =>
      this.toConnection(row),
    );
  }

  get(id: string): Connection {
    const row = this.database.prepare('SELECT * FROM connections WHERE id = ? AND deleted_at IS NULL').get(id) as
      | ConnectionRow
      | undefined;
    if (!row) throw new WorkbenchError('not-found', `No connection ${id}`);
    return this.toConnection(row);
  }

  /** The stored password of a connection, or null. */
  password(id: string): string | null {
    return this.secrets.get(passwordKey(id));
  }

  add(name: string, target: ConnectionTarget, password?: string): Connection {
    const id = this.environment.newId();
    const now = this.environment.now();
    this.database
      .prepare('INSERT INTO connections (id, name, engine, target, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(id, name, target.engine, JSON.stringify(target), now, now);
    this.setPassword(id, password);
    return this.get(id);
  }

  rename(id: string, name: string): Connection {
    return this.update(id, { name });
  }

  /** Changes what is given: `password` absent keeps the stored one, empty removes it. */
  update(id: string, changes: { name?: string; target?: ConnectionTarget; password?: string }): Connection {
    const current = this.get(id);
    const target = changes.target ?? current.target;
    this.database
      .prepare('UPDATE connections SET name = ?, engine = ?, target = ?, updated_at = ? WHERE id = ?')
      .run(changes.name ?? current.name, target.engine, JSON.stringify(target), this.environment.now(), id);
    this.setPassword(id, changes.password);
    return this.get(id);
  }

  /** Moves the connection to the trash and forgets its password (the database itself is not touched). */
  remove(id: string): void {
    const connection = this.get(id);
    this.database
      .prepare('UPDATE connections SET deleted_at = ?, password_forgotten = ? WHERE id = ?')
      .run(this.environment.now(), connection.hasPassword ? 1 : 0, id);
    this.secrets.delete(passwordKey(id));
  }

  private setPassword(id: string, password: string | undefined): void {
    if (password === undefined) return;
    if (password === '') this.secrets.delete(passwordKey(id));
    else this.secrets.set(passwordKey(id), password);
  }

  private toConnection(row: ConnectionRow): Connection {
    return {
      id: row.id,
      name: row.name,
      engine: row.engine,
      target: connectionTargetSchema.parse(JSON.parse(row.target)),
      hasPassword: this.secrets.get(passwordKey(row.id)) !== null,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }
}
