import { WorkbenchError } from '../contract/errors';
import { connectionTargetSchema, type Connection, type ConnectionTarget } from '../contract/connections';
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

/** The workspace's saved connections (targets only; secrets live in the secret store). */
export class ConnectionStore {
  constructor(
    private readonly database: AppDatabase,
    private readonly environment: Environment,
  ) {}

  list(): Connection[] {
    return (this.database.prepare('SELECT * FROM connections WHERE deleted_at IS NULL ORDER BY name').all() as ConnectionRow[]).map(
      toConnection,
    );
  }

  get(id: string): Connection {
    const row = this.database.prepare('SELECT * FROM connections WHERE id = ? AND deleted_at IS NULL').get(id) as
      | ConnectionRow
      | undefined;
    if (!row) throw new WorkbenchError('not-found', `No connection ${id}`);
    return toConnection(row);
  }

  add(name: string, target: ConnectionTarget): Connection {
    const id = this.environment.newId();
    const now = this.environment.now();
    this.database
      .prepare('INSERT INTO connections (id, name, engine, target, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(id, name, target.engine, JSON.stringify(target), now, now);
    return this.get(id);
  }

  rename(id: string, name: string): Connection {
    this.get(id);
    this.database.prepare('UPDATE connections SET name = ?, updated_at = ? WHERE id = ?').run(name, this.environment.now(), id);
    return this.get(id);
  }

  remove(id: string): void {
    this.get(id);
    this.database.prepare('UPDATE connections SET deleted_at = ? WHERE id = ?').run(this.environment.now(), id);
  }
}

function toConnection(row: ConnectionRow): Connection {
  return {
    id: row.id,
    name: row.name,
    engine: row.engine,
    target: connectionTargetSchema.parse(JSON.parse(row.target)),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
