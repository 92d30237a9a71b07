import type { Client } from 'pg';

import { WorkbenchError } from '../../contract/errors';

/**
 * What the login role may do beyond reading, as the server itself reports it. A read-only
 * transaction stops writes to tables, but not what a superuser or a member of the server's
 * file/program/signal roles can do from inside a SELECT: read and write server files, run
 * programs, open a second session through dblink that commits, end other sessions, create
 * replication slots, reset statistics. The statement guard blocks the spellings it knows;
 * only a role without these rights makes the server refuse them all. So a privileged login is
 * refused unless the connection explicitly opts in (`allow_privileged=1`).
 */
const dangerousRoles = [
  'pg_read_server_files',
  'pg_write_server_files',
  'pg_execute_server_program',
  'pg_signal_backend',
  'pg_write_all_data',
  'pg_checkpoint',
  'pg_create_subscription',
];

/** The query reads attributes of the session's own role and the dangerous roles it is a member of. */
const privilegesSql = `
  SELECT r.rolname, r.rolsuper, r.rolreplication, r.rolbypassrls,
         ARRAY(SELECT m.rolname::text FROM pg_roles m
                WHERE m.rolname = ANY($1::text[]) AND pg_has_role(r.oid, m.oid, 'MEMBER')
                ORDER BY m.rolname) AS memberships
    FROM pg_roles r
   WHERE r.rolname = current_user`;

export interface LoginPrivileges {
  role: string;
  /** Each right beyond reading, e.g. "SUPERUSER", "member of pg_read_server_files". */
  dangers: string[];
}

export async function readLoginPrivileges(client: Client): Promise<LoginPrivileges> {
  const { rows } = await client.query<{ rolname: string; rolsuper: boolean; rolreplication: boolean; rolbypassrls: boolean; memberships: string[] }>(
    privilegesSql,
    [dangerousRoles],
  );
  const row = rows[0];
  if (row === undefined) return { role: '(unknown)', dangers: ['login role not found in pg_roles'] };
  const dangers = [
    ...(row.rolsuper ? ['SUPERUSER'] : []),
    ...(row.rolreplication ? ['REPLICATION'] : []),
    ...(row.rolbypassrls ? ['BYPASSRLS'] : []),
    // A superuser is a member of every role; naming them all would say nothing more.
    ...(row.rolsuper ? [] : row.memberships.map((name) => `member of ${name}`)),
  ];
  return { role: row.rolname, dangers };
}

/** How to make a login the connector accepts without opting in (also in README › Data sources). */
export const readOnlyRoleRecipe =
  "CREATE ROLE dwb_reader LOGIN PASSWORD '…' NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS; " +
  'GRANT pg_read_all_data TO dwb_reader; (or, for one schema: GRANT CONNECT ON DATABASE db TO dwb_reader; ' +
  'GRANT USAGE ON SCHEMA public TO dwb_reader; GRANT SELECT ON ALL TABLES IN SCHEMA public TO dwb_reader;)';

export function privilegedLoginRefusal(privileges: LoginPrivileges): WorkbenchError {
  return new WorkbenchError(
    'read-only',
    `PostgreSQL: refusing to connect as "${privileges.role}" (${privileges.dangers.join(', ')}): with these rights a query can act outside ` +
      `the read-only transaction (server files, programs, other sessions). Connect with a read-only role instead: ${readOnlyRoleRecipe} ` +
      'To connect with this login anyway, add ?allow_privileged=1 to the URL.',
  );
}

export function privilegedLoginWarning(privileges: LoginPrivileges): string {
  return (
    `WARNING: connected as privileged PostgreSQL role "${privileges.role}" (${privileges.dangers.join(', ')}) because allow_privileged=1 was given; ` +
    'the read-only transaction and statement guard still apply, but the server will not refuse what these rights allow. Use a read-only role (README › Data sources).'
  );
}
