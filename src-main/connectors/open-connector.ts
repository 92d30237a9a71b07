import type { ConnectionTarget } from '../contract/connections';
import type { Connector } from './connector';
import { withPassword } from './server-url';
import { withRowStream } from './shared/row-stream';
import { withNameSuggestions } from './shared/unknown-names';
import { openSqliteConnector } from './sqlite/sqlite-connector';

/**
 * The one place that maps a connection target to the connector that opens it. The password
 * (from the secret store, or from a URI given to the CLI) is used for this open only. Engines
 * other than SQLite load on first use, so a driver that cannot load on this machine fails only
 * the connections that need it.
 */
export async function openConnector(target: ConnectionTarget, password: string | null = null): Promise<Connector> {
  return withRowStream(withNameSuggestions(await openEngine(target, password)));
}

async function openEngine(target: ConnectionTarget, password: string | null): Promise<Connector> {
  switch (target.engine) {
    case 'sqlite':
      return openSqliteConnector({ path: target.path });
    case 'duckdb': {
      const { openDuckdbConnector } = await import('./duckdb');
      if (target.format === 'csv') return openDuckdbConnector({ csv: target.path });
      if (target.format === 'parquet') return openDuckdbConnector({ parquet: target.path });
      return openDuckdbConnector({ path: target.path });
    }
    // The embedded graph engine: LadybugDB, the continuation of Kùzu (the stored engine id stays `kuzu`).
    case 'kuzu': {
      const { openLadybugConnector } = await import('./ladybug');
      return openLadybugConnector({ path: target.path });
    }
    case 'postgres': {
      const { openPostgresConnector } = await import('./postgres');
      return openPostgresConnector({ url: withPassword(target.url, password) });
    }
    case 'mysql': {
      const { openMysqlConnector } = await import('./mysql');
      return openMysqlConnector({ url: withPassword(target.url, password) });
    }
    case 'neo4j': {
      const { openNeo4jConnector } = await import('./neo4j');
      return openNeo4jConnector({
        url: target.url,
        ...(target.username !== undefined ? { username: target.username } : {}),
        ...(password !== null ? { password } : {}),
        ...(target.database !== undefined ? { database: target.database } : {}),
      });
    }
    case 'trino': {
      const { openTrinoConnector } = await import('./trino');
      return openTrinoConnector({ url: target.url, password });
    }
  }
}
