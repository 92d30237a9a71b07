import type { ConnectionTarget } from '../contract/connections';
import type { Connector } from './connector';
import { openSqliteConnector } from './sqlite/sqlite-connector';

/** The one place that maps a saved connection target to the connector that opens it. */
export async function openConnector(target: ConnectionTarget): Promise<Connector> {
  switch (target.engine) {
    case 'sqlite':
      return openSqliteConnector({ path: target.path });
  }
}
