/**
 * Loads a DQA scenario's data from any open Connector, relational (SQL) or graph (Cypher), so
 * the simulators read the analyst's databases through the same read-only path as the
 * planner does. Both dialects produce the LocatingData / BuildingData the dump loaders give,
 * in the same order (see connector-sql-load.ts and connector-cypher-load.ts for what order
 * each engine can guarantee).
 */
import type { Connector } from '../connectors/connector';
import type { BuildingData } from './building-data';
import { buildingFromCypherConnector, locatingFromCypherConnector } from './connector-cypher-load';
import { buildingFromSqlConnector, locatingFromSqlConnector, type ConnectorLoad } from './connector-sql-load';
import type { LocatingData } from './locating-data';

export type { ConnectorLoad } from './connector-sql-load';
export { IMPORT_ORDER_COLUMN } from './connector-sql-load';

/** `dump` picks one dump of a graph database several were imported into (see connector-cypher-load.ts). */
export function loadLocatingFromConnector(connector: Connector, source?: string, dump?: string): Promise<ConnectorLoad<LocatingData>> {
  return connector.dialect === 'sql' ? locatingFromSqlConnector(connector, source) : locatingFromCypherConnector(connector, source, dump);
}

export function loadBuildingFromConnector(connector: Connector, source?: string, dump?: string): Promise<ConnectorLoad<BuildingData>> {
  return connector.dialect === 'sql' ? buildingFromSqlConnector(connector, source) : buildingFromCypherConnector(connector, source, dump);
}
