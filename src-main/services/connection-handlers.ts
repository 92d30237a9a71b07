import { normalizeTarget } from '../connectors/target-check';
import { testConnection } from '../connectors/test-connection';
import type { SecretStore } from '../secrets/secret-store';
import type { ConnectionStore } from '../workspace/connection-store';
import type { ConnectionPool } from './connection-pool';
import type { EventBus } from './event-bus';
import type { HandlersFor } from './router';

/**
 * The `connections/*` requests: saved connections and their schema. A change to a connection
 * releases its open connector, so the next use reopens it with the new target or password.
 */
export function connectionHandlers(dependencies: { connections: ConnectionStore; pool: ConnectionPool; secrets: SecretStore; bus: EventBus }): HandlersFor<'connections/'> {
  const { connections, pool, secrets, bus } = dependencies;
  const changed = <T>(value: T): T => {
    bus.emit('connections-change', {});
    return value;
  };
  return {
    'connections/list': () => connections.list(),
    'connections/add': async ({ name, target, password }) => changed(connections.add(name, await normalizeTarget(target), password)),
    'connections/rename': ({ id, name }) => changed(connections.rename(id, name)),
    'connections/update': async ({ id, name, target, password }) => {
      const connection = connections.update(id, { name, target: target && (await normalizeTarget(target)), password });
      await pool.release(id);
      return changed(connection);
    },
    'connections/remove': async ({ id }) => {
      connections.remove(id);
      await pool.release(id);
      return changed({ ok: true as const });
    },
    'connections/schema': async ({ id }) => {
      const connector = await pool.get(id);
      return { connectionId: id, schema: await connector.schema() };
    },
    'connections/test': ({ target, password, id }) => testConnection(target, password ?? (id === undefined ? null : connections.password(id))),
    'connections/secrets-info': () => ({ persistent: secrets.persistent }),
  };
}
