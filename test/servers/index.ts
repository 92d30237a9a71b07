/**
 * Real, throwaway database servers for the connector tests: each binds 127.0.0.1 on a free
 * port, keeps its data in a temp directory, and is removed by stop(). Each start function
 * returns null, after printing a one-line reason, when the server software is not installed,
 * and each `why…Unavailable()` says so up front for `describe.skipIf`.
 */
export { mariadbAdminUri, startMariadb, whyMariadbUnavailable } from './mariadb';
export { startNeo4j, whyNeo4jUnavailable } from './neo4j';
export { startPostgres, whyPostgresUnavailable } from './postgres';
export { startTrino, trinoAdminUser, trinoReaderUser, whyTrinoUnavailable, type TrinoTestServer } from './trino';
export type { TestServer } from './types';
