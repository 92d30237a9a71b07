import type { Connection, ConnectionTarget, SchemaInfo } from '../../src-main/contract';
import type { SliceContext } from './store';

export type SchemaState = { status: 'loading' } | { status: 'ready'; schema: SchemaInfo } | { status: 'error'; message: string };

export interface ConnectionsSlice {
  connections: Connection[];
  schemas: Record<string, SchemaState>;
  loadConnections(): Promise<void>;
  addConnection(name: string, target: ConnectionTarget): Promise<Connection>;
  removeConnection(id: string): Promise<void>;
  loadSchema(id: string, options?: { refresh?: boolean }): Promise<void>;
}

export function createConnectionsSlice({ client, set, get }: SliceContext): ConnectionsSlice {
  return {
    connections: [],
    schemas: {},
    loadConnections: async () => {
      set({ connections: await client.invoke('connections/list', {}) });
    },
    addConnection: async (name, target) => {
      const connection = await client.invoke('connections/add', { name, target });
      await get().loadConnections();
      return connection;
    },
    removeConnection: async (id) => {
      await client.invoke('connections/remove', { id });
      const { [id]: _removed, ...schemas } = get().schemas;
      set({ schemas });
      await get().loadConnections();
    },
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
  };
}
