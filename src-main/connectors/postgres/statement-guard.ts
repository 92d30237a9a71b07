import { guardSqlText } from '../shared/sql-guard';
import { calledFunction, type LexedToken } from '../shared/sql-tokens';
import { scanPostgresSql } from './sql-lexer';

/**
 * Statement kinds that only read. Everything else (COPY, DO, CALL, SET, LOAD, PREPARE, LOCK,
 * ANALYZE, REINDEX, NOTIFY...) is refused before it reaches the server, because a read-only
 * transaction does not stop statements whose effects live outside the transaction: COPY TO a
 * server file or PROGRAM, LOAD of a shared library, SET of session settings, and so on.
 */
const readStatements = new Set(['SELECT', 'WITH', 'VALUES', 'TABLE', 'SHOW', 'EXPLAIN']);

/**
 * Every other word that can start a PostgreSQL statement. A first word in neither list cannot
 * start any statement, so it goes to the server, whose parser reports the real syntax error.
 */
const otherStatements = new Set([
  'ABORT', 'ALTER', 'ANALYZE', 'ANALYSE', 'BEGIN', 'CALL', 'CHECKPOINT', 'CLOSE', 'CLUSTER', 'COMMENT',
  'COMMIT', 'COPY', 'CREATE', 'DEALLOCATE', 'DECLARE', 'DELETE', 'DISCARD', 'DO', 'DROP', 'END',
  'EXECUTE', 'FETCH', 'GRANT', 'IMPORT', 'INSERT', 'LISTEN', 'LOAD', 'LOCK', 'MERGE', 'MOVE', 'NOTIFY',
  'PREPARE', 'REASSIGN', 'REFRESH', 'REINDEX', 'RELEASE', 'RESET', 'REVOKE', 'ROLLBACK', 'SAVEPOINT',
  'SECURITY', 'SET', 'START', 'TRUNCATE', 'UNLISTEN', 'UPDATE', 'VACUUM',
]);

/**
 * Built-in and contrib functions with effects a read-only transaction does not undo (server
 * files, other sessions, server configuration, statistics, replication, session-level locks,
 * outside connections), and those that run a query given as a string (query_to_xml, ts_stat,
 * the two-argument ts_rewrite) or read an open cursor (cursor_to_xml),
 * which would hide any of them from this text check. A superuser can call them inside a
 * SELECT; this list stops them however they are spelt (quoted, U&-escaped, schema-qualified).
 * It is a text check and therefore best effort: the real defence is the login role, which the
 * connector checks at connect (login-privileges.ts).
 */
const sideEffectFunctions = new Set([
  // server files and programs
  'lo_export', 'lo_import', 'pg_file_write', 'pg_file_rename', 'pg_file_unlink', 'pg_file_sync',
  'pg_read_file', 'pg_read_binary_file', 'pg_ls_dir', 'pg_stat_file', 'pg_ls_logdir', 'pg_ls_waldir',
  'pg_ls_tmpdir', 'pg_ls_archive_statusdir', 'pg_ls_logicalsnapdir', 'pg_ls_logicalmapdir', 'pg_ls_replslotdir',
  // server and other sessions
  'pg_reload_conf', 'pg_rotate_logfile', 'pg_terminate_backend', 'pg_cancel_backend',
  'pg_switch_wal', 'pg_create_restore_point', 'pg_promote', 'pg_log_backend_memory_contexts',
  'pg_backup_start', 'pg_backup_stop', 'pg_start_backup', 'pg_stop_backup',
  'pg_wal_replay_pause', 'pg_wal_replay_resume', 'pg_import_system_collations',
  // statistics
  'pg_stat_reset', 'pg_stat_reset_shared', 'pg_stat_reset_single_table_counters',
  'pg_stat_reset_single_function_counters', 'pg_stat_reset_slru', 'pg_stat_reset_replication_slot',
  'pg_stat_reset_subscription_stats', 'pg_stat_statements_reset',
  // replication
  'pg_create_physical_replication_slot', 'pg_create_logical_replication_slot', 'pg_drop_replication_slot',
  'pg_copy_physical_replication_slot', 'pg_copy_logical_replication_slot', 'pg_replication_slot_advance',
  'pg_logical_slot_get_changes', 'pg_logical_slot_get_binary_changes', 'pg_logical_emit_message',
  'pg_replication_origin_create', 'pg_replication_origin_drop', 'pg_replication_origin_advance',
  'pg_replication_origin_session_setup', 'pg_replication_origin_session_reset', 'pg_replication_origin_xact_setup',
  'pg_sync_replication_slots',
  // session-level locks and settings
  'pg_advisory_lock', 'pg_advisory_lock_shared', 'pg_try_advisory_lock', 'pg_try_advisory_lock_shared',
  'set_config',
  // notifications to other sessions' listeners
  'pg_notify',
  // queries given as text, or read from a cursor
  'query_to_xml', 'query_to_xmlschema', 'query_to_xml_and_xmlschema', 'ts_stat', 'ts_rewrite',
  'cursor_to_xml', 'cursor_to_xmlschema',
  // outside connections (dblink, postgres_fdw)
  'dblink', 'dblink_exec', 'dblink_connect', 'dblink_connect_u', 'dblink_send_query', 'dblink_open',
  'dblink_fetch', 'dblink_close', 'dblink_get_result', 'dblink_disconnect', 'postgres_fdw_disconnect',
  'postgres_fdw_disconnect_all',
]);

/**
 * The large-object functions other than lo_import/lo_export (which touch server files and are
 * listed above). They create, write, truncate and unlink objects that live beside the tables:
 * PostgreSQL runs them inside a READ ONLY transaction (lo_create and lo_from_bytea succeed
 * there), so only the connector's rollback would undo them. What the server itself enforces:
 * writing or unlinking someone else's object needs its owner's rights (lo_compat_privileges
 * off, the default), and lo_import/lo_export are not executable by ordinary logins (the
 * connector refuses at connect a login that may run them: login-privileges.ts). Nothing
 * a decision needs reads large objects, so every one is refused here, reads included.
 */
const largeObjectFunctions = new Set([
  'lo_create', 'lo_creat', 'lo_from_bytea', 'lo_put', 'lo_get', 'lo_open', 'lo_close', 'loread', 'lowrite',
  'lo_lseek', 'lo_lseek64', 'lo_tell', 'lo_tell64', 'lo_truncate', 'lo_truncate64', 'lo_unlink',
]);

/** A called name as PostgreSQL compares it: unquoted names fold to lower case, quoted ones are compared as written. */
const postgresName = (token: LexedToken): string => (token.kind === 'word' ? token.value.toLowerCase() : token.value);

/**
 * First protection layer, before the server sees the text: each statement must be a read
 * statement and must not call a side-effect function. The server-side layers (read-only
 * session, read-only transaction, single-statement extended protocol) apply regardless.
 */
export function checkPostgresStatement(text: string): void {
  guardSqlText(scanPostgresSql(text), {
    engine: 'PostgreSQL',
    readStatements,
    otherStatements,
    sideEffectFunctions,
    functionName: postgresName,
    refuse: (statement) => {
      const called = calledFunction(statement, largeObjectFunctions, postgresName);
      return called === null ? null : `${called}() is not allowed: the connector runs no large-object functions (they create and change objects outside the tables)`;
    },
  });
}
