import neo4j from 'neo4j-driver';

import type { Connector } from '../connector';
import { openFailure } from '../shared/open-failure';
import { requireUrlScheme, type UrlRule } from '../shared/url-scheme';
import { describeOpenFailure, toWorkbenchError } from './errors';
import { Neo4jConnector } from './neo4j-connector';

export interface Neo4jConnectorOptions {
  /** `neo4j://`, `neo4j+s://`, `neo4j+ssc://`, `bolt://`, `bolt+s://` or `bolt+ssc://` host and port. */
  url: string;
  /** Basic-auth user; without one the driver connects with no credentials. */
  username?: string;
  password?: string;
  /** Database name; the server's default database when omitted. */
  database?: string;
  /** How long to wait for the server to accept the connection. Default 10 s. */
  connectTimeoutMs?: number;
}

export const neo4jUrlRule: UrlRule = {
  engine: 'Neo4j',
  schemes: ['neo4j:', 'neo4j+s:', 'neo4j+ssc:', 'bolt:', 'bolt+s:', 'bolt+ssc:'],
  example: 'neo4j://host:port or bolt://host:port',
};

/**
 * Opens a read-only Neo4j connector. Protection layers, outermost first:
 * 1. EXPLAIN pre-check: the planner must classify the query as read-only ('r'); CALL only of
 *    allow-listed procedures; no LOAD CSV or TERMINATE TRANSACTIONS operators;
 * 2. READ access-mode sessions: the server refuses any write in them;
 * 3. explicit transactions with a server-side timeout, always rolled back.
 */
export async function openNeo4jConnector(options: Neo4jConnectorOptions): Promise<Connector> {
  requireUrlScheme(options.url, neo4jUrlRule);

  const auth = options.username !== undefined ? neo4j.auth.basic(options.username, options.password ?? '') : undefined;
  const driver = neo4j.driver(options.url, auth, {
    connectionTimeout: options.connectTimeoutMs ?? 10_000,
    maxConnectionPoolSize: 10,
    userAgent: 'decision-workbench',
    // Of the server's notifications only "unrecognized" warnings (an unknown label, relationship
    // type or property) are used: they explain an empty result. Hints, deprecations and the rest are not needed.
    notificationFilter: { minimumSeverityLevel: 'WARNING', disabledCategories: ['HINT', 'UNSUPPORTED', 'PERFORMANCE', 'DEPRECATION', 'GENERIC', 'SECURITY', 'TOPOLOGY'] },
  });
  try {
    await driver.verifyConnectivity({ database: options.database });
  } catch (error) {
    await driver.close().catch(() => undefined);
    throw describeOpenFailure(openFailure(toWorkbenchError(error), error), options.url);
  }
  return new Neo4jConnector(driver, options.database);
}
