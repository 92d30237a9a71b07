/**
 * `DWB_SKIP_SERVERS=postgres,mariadb,neo4j,trino` (or `all`) makes the named servers count as
 * unavailable, to see what a machine without them reports, or to run the suites quickly.
 */
export function skippedOnRequest(server: 'postgres' | 'mariadb' | 'neo4j' | 'trino'): string | null {
  const names = (process.env['DWB_SKIP_SERVERS'] ?? '').split(',').map((name) => name.trim().toLowerCase());
  return names.includes(server) || names.includes('all') ? `${server} skipped on request (DWB_SKIP_SERVERS)` : null;
}
