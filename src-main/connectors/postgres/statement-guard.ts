import { guardSqlText } from '../shared/sql-guard';
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
 * Built-in functions with effects a read-only transaction does not undo (server files,
 * other sessions, server configuration, session-level locks, outside connections). A
 * superuser can call them inside a SELECT; this list stops the obvious spellings. It is a
 * text check and therefore best effort: the real defence against them is a login role
 * without superuser or file/program privileges.
 */
const sideEffectFunctions = new Set([
  'lo_export', 'lo_import', 'pg_file_write', 'pg_file_rename', 'pg_file_unlink', 'pg_file_sync',
  'pg_read_file', 'pg_read_binary_file', 'pg_ls_dir', 'pg_stat_file',
  'pg_reload_conf', 'pg_rotate_logfile', 'pg_terminate_backend', 'pg_cancel_backend',
  'pg_switch_wal', 'pg_create_restore_point', 'pg_promote', 'pg_log_backend_memory_contexts',
  'pg_backup_start', 'pg_backup_stop', 'pg_start_backup', 'pg_stop_backup',
  'pg_create_physical_replication_slot', 'pg_create_logical_replication_slot', 'pg_drop_replication_slot',
  'pg_advisory_lock', 'pg_advisory_lock_shared', 'pg_try_advisory_lock', 'pg_try_advisory_lock_shared',
  'set_config', 'dblink', 'dblink_exec', 'dblink_connect', 'dblink_connect_u', 'dblink_send_query',
]);

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
    // Unquoted names fold to lower case; quoted ones are compared as written.
    functionName: (token) => (token.kind === 'word' ? token.value.toLowerCase() : token.value),
  });
}
