import { guardSqlText } from '../shared/sql-guard';
import { scanMysqlSql, type SqlToken } from './sql-lexer';

/** Statement kinds that only read. */
const readStatements = new Set(['SELECT', 'WITH', 'SHOW', 'DESCRIBE', 'DESC', 'EXPLAIN', 'VALUES', 'TABLE', 'HELP']);

/**
 * Every other word that starts a MySQL or MariaDB statement. They are refused before reaching
 * the server because a READ ONLY transaction does not cover them all: SET GLOBAL, SET SESSION
 * (which could switch the session back to read-write), FLUSH, KILL, DO GET_LOCK and CALL all
 * run inside one. A first word in neither list goes to the server for its own syntax error.
 */
const otherStatements = new Set([
  'ALTER', 'ANALYZE', 'BACKUP', 'BEGIN', 'BINLOG', 'CACHE', 'CALL', 'CHANGE', 'CHECK', 'CHECKSUM',
  'CLONE', 'COMMIT', 'CREATE', 'DEALLOCATE', 'DELETE', 'DO', 'DROP', 'EXECUTE', 'FLUSH', 'GET', 'GRANT',
  'HANDLER', 'IMPORT', 'INSERT', 'INSTALL', 'KILL', 'LOAD', 'LOCK', 'OPTIMIZE', 'PREPARE', 'PURGE',
  'RELEASE', 'RENAME', 'REPAIR', 'REPLACE', 'RESET', 'RESIGNAL', 'RESTART', 'REVOKE', 'ROLLBACK',
  'SAVEPOINT', 'SET', 'SHUTDOWN', 'SIGNAL', 'START', 'STOP', 'TRUNCATE', 'UNINSTALL', 'UNLOCK',
  'UPDATE', 'USE', 'XA',
]);

/**
 * Functions whose effects outlive the transaction or reach outside the database: server files
 * and session-level locks. Text check, best effort; a login without FILE privilege is the
 * server-side answer to LOAD_FILE.
 */
const sideEffectFunctions = new Set(['load_file', 'get_lock', 'release_lock', 'release_all_locks', 'sys_exec', 'sys_eval']);

/**
 * First protection layer, before the server sees the text. `SELECT … INTO OUTFILE/DUMPFILE`
 * is refused here because a read-only transaction lets it write a server file, and
 * `SELECT … INTO @variable` because it assigns session variables, which the rollback keeps
 * (and which returns no result set to show).
 */
export function checkMysqlStatement(text: string): void {
  guardSqlText(scanMysqlSql(text), {
    engine: 'MySQL',
    readStatements,
    otherStatements,
    sideEffectFunctions,
    functionName: (token) => token.value.toLowerCase(),
    refuse: (statement) => {
      const target = intoTarget(statement);
      if (target === null) return null;
      if (target === 'OUTFILE' || target === 'DUMPFILE') return `SELECT … INTO ${target} is not allowed: it writes a file on the server`;
      return 'SELECT … INTO a variable is not allowed: it assigns session variables instead of returning rows; select the value itself';
    },
  });
}

/**
 * What a statement's `INTO` writes to: OUTFILE, DUMPFILE or 'variable'. In a statement that
 * starts like a read, a bare INTO (strings, comments and quoted names are other tokens) can
 * only be SELECT's INTO clause.
 */
function intoTarget(tokens: SqlToken[]): 'OUTFILE' | 'DUMPFILE' | 'variable' | null {
  for (let index = 0; index < tokens.length; index += 1) {
    if (tokens[index]?.kind !== 'word' || tokens[index]?.value.toUpperCase() !== 'INTO') continue;
    const next = tokens[index + 1];
    const word = next?.kind === 'word' ? next.value.toUpperCase() : '';
    return word === 'OUTFILE' || word === 'DUMPFILE' ? word : 'variable';
  }
  return null;
}
