import type { Connection, ConnectionTargetInput, ConnectionTestReport, SchemaInfo } from '../../src-main/contract';
import type { SliceContext } from './store';

export type SchemaState = { status: 'loading' } | { status: 'ready'; schema: SchemaInfo } | { status: 'error'; message: string };

export interface ConnectionChanges {
  name?: string;
  target?: ConnectionTargetInput;
  /** Absent keeps the stored password, empty removes it. */
  password?: string;
}

export interface ConnectionsSlice {
  connections: Connection[];
  schemas: Record<string, SchemaState>;
  /** Whether passwords survive a restart; null until asked (false in browser mode). */
  secretsPersistent: boolean | null;
  loadConnections(): Promise<void>;
  loadSecretsInfo(): Promise<void>;
  addConnection(name: string, target: ConnectionTargetInput, password?: string): Promise<Connection>;
  updateConnection(id: string, changes: ConnectionChanges): Promise<Connection>;
  removeConnection(id: string): Promise<void>;
  /** Opens the target (saved or not), reads its schema and reports counts or the exact error. */
  testConnection(target: ConnectionTargetInput, password: string | undefined, id?: string): Promise<ConnectionTestReport>;
  loadSchema(id: string, options?: { refresh?: boolean }): Promise<void>;
  /** The desktop file picker; null when cancelled. */
  pickFile(title: string, extensions: string[]): Promise<string | null>;
}

export function createConnectionsSlice({ client, set, get }: SliceContext): ConnectionsSlice {
  const forgetSchema = (id: string): void => {
    const { [id]: _dropped, ...schemas } = get().schemas;
    set({ schemas });
  };
  return {
    connections: [],
    schemas: {},
    secretsPersistent: null,
    loadConnections: async () => {
      set({ connections: await client.invoke('connections/list', {}) });
    },
    loadSecretsInfo: async () => {
      set({ secretsPersistent: (await client.invoke('connections/secrets-info', {})).persistent });
    },
    addConnection: async (name, target, password) => {
      const connection = await client.invoke('connections/add', { name, target, ...(password !== undefined ? { password } : {}) });
      await get().loadConnections();
      return connection;
    },
    updateConnection: async (id, changes) => {
      const connection = await client.invoke('connections/update', { id, ...changes });
      // The next look at the schema reads the edited target.
      forgetSchema(id);
      await get().loadConnections();
      return connection;
    },
    removeConnection: async (id) => {
      await client.invoke('connections/remove', { id });
      forgetSchema(id);
      await get().loadConnections();
    },
    testConnection: (target, password, id) =>
      client.invoke('connections/test', { target, ...(password !== undefined ? { password } : {}), ...(id !== undefined ? { id } : {}) }),
    loadSchema: async (id, options) => {
      const existing = get().schemas[id];
      if (existing && existing.status !== 'error' && !options?.refresh) return;
      set({ schemas: { ...get().schemas, [id]: { status: 'loading' } } });
      try {
        const { schema } = await client.invoke('connections/schema', { id });
        set({ schemas: { ...get().schemas, [id]: { status: 'ready', schema } } });
      } catch (error) {
        set({ schemas: { ...get().schemas, [id]: { status: 'error', message: error instanceof Error ? error.message : String(error) } } });
      }
    },
    pickFile: async (title, extensions) => (await client.invoke('dialog/open-file', { title, extensions })).path,
  };
}
