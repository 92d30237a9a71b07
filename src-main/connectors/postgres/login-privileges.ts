import type { Client } from 'pg';

import { WorkbenchError } from '../../contract/errors';

/**
 * What the login role may do beyond reading, as the server itself reports it. A read-only
 * transaction stops writes to tables, but not what a superuser or a member of the server's
 * file/program/signal roles can do from inside a SELECT: read and write server files, run
 * programs, open a second session through dblink that commits, end other sessions, create
 * replication slots, reset statistics; nor what a role that may create roles can grant. The
 * statement guard blocks the spellings it knows; only a role without these rights makes the
 * server refuse them all. So a privileged login is
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

/**
 * The session's own role and every role it can reach through pg_auth_members, directly or
 * through other roles. Each membership counts whatever its INHERIT (or, from PostgreSQL 16,
 * SET) option says: a NOINHERIT member does not use the role's rights until `SET ROLE`, and
 * one statement is all that takes. A role counts when it is one of the dangerous predefined
 * roles or carries a dangerous attribute itself (a superuser role is the worst case: SET ROLE
 * to it makes the session a superuser, which no inherited membership ever does).
 */
const privilegesSql = `
  WITH RECURSIVE reachable(oid) AS (
    SELECT m.roleid FROM pg_auth_members m JOIN pg_roles me ON me.oid = m.member WHERE me.rolname = current_user
    UNION
    SELECT m.roleid FROM pg_auth_members m JOIN reachable r ON m.member = r.oid
  )
  SELECT r.rolname, r.rolsuper, r.rolreplication, r.rolbypassrls, r.rolcreaterole,
         COALESCE((SELECT json_agg(json_build_object('name', g.rolname::text, 'attributes',
                     array_remove(ARRAY[CASE WHEN g.rolsuper THEN 'SUPERUSER' END, CASE WHEN g.rolcreaterole THEN 'CREATEROLE' END,
                                        CASE WHEN g.rolreplication THEN 'REPLICATION' END, CASE WHEN g.rolbypassrls THEN 'BYPASSRLS' END], NULL))
                     ORDER BY g.rolname)
                     FROM pg_roles g JOIN reachable USING (oid)
                    WHERE g.rolname = ANY($1::text[]) OR g.rolsuper OR g.rolcreaterole OR g.rolreplication OR g.rolbypassrls), '[]') AS memberships,
         ARRAY(SELECT f FROM unnest($2::text[]) AS f
                WHERE to_regprocedure(f) IS NOT NULL AND has_function_privilege(to_regprocedure(f), 'EXECUTE')) AS file_functions
    FROM pg_roles r
   WHERE r.rolname = current_user`;

/**
 * Functions that read or write server files as the server's own account. PostgreSQL revokes
 * them from PUBLIC; a login granted one of them (directly or through a role) is as dangerous
 * as a member of pg_read_server_files or pg_write_server_files, so the server, not only the
 * statement guard, must be the one that refuses them.
 */
const serverFileFunctions = [
  'lo_import(text)', 'lo_import(text, oid)', 'lo_export(oid, text)',
  'pg_read_file(text)', 'pg_read_file(text, bigint, bigint)', 'pg_read_binary_file(text)', 'pg_ls_dir(text)', 'pg_stat_file(text)',
];

interface PrivilegedMembership {
  name: string;
  /** The dangerous attributes the role carries itself, e.g. ['SUPERUSER']. */
  attributes: string[];
}

export interface LoginPrivileges {
  role: string;
  /** Each right beyond reading, e.g. "SUPERUSER", "member of pg_read_server_files". */
  dangers: string[];
}

export async function readLoginPrivileges(client: Client): Promise<LoginPrivileges> {
  const { rows } = await client.query<{
    rolname: string; rolsuper: boolean; rolreplication: boolean; rolbypassrls: boolean; rolcreaterole: boolean; memberships: PrivilegedMembership[]; file_functions: string[];
  }>(privilegesSql, [dangerousRoles, serverFileFunctions]);
  const row = rows[0];
  if (row === undefined) return { role: '(unknown)', dangers: ['login role not found in pg_roles'] };
  const dangers = [
    ...(row.rolsuper ? ['SUPERUSER'] : []),
    ...(row.rolreplication ? ['REPLICATION'] : []),
    ...(row.rolbypassrls ? ['BYPASSRLS'] : []),
    // A superuser may do anything; naming what else it may do (or each role it is a member of) would say nothing more.
    ...(row.rolsuper ? [] : row.rolcreaterole ? ['CREATEROLE'] : []),
    ...(row.rolsuper ? [] : row.memberships.map(describeMembership)),
    ...(row.rolsuper ? [] : row.file_functions.map((signature) => `may EXECUTE ${signature}`)),
  ];
  return { role: row.rolname, dangers };
}

/** "member of pg_read_server_files", "member of admins (SUPERUSER; SET ROLE admins gives it)". */
function describeMembership(membership: PrivilegedMembership): string {
  if (membership.attributes.length === 0) return `member of ${membership.name}`;
  return `member of ${membership.name} (${membership.attributes.join(', ')}; SET ROLE ${membership.name} gives it)`;
}

/** How to make a login the connector accepts without opting in (also in docs/security.md). */
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
    'the read-only transaction and statement guard still apply, but the server will not refuse what these rights allow. Use a read-only role (docs/security.md).'
  );
}
