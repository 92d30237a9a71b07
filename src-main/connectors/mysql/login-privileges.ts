import type { Connection } from 'mysql2';

import { WorkbenchError } from '../../contract/errors';
import { runOwnStatement } from './read-only-session';
import { scanMysqlSql, type SqlToken } from './sql-lexer';

/**
 * What the login may do beyond reading, as the server itself reports it. A read-only
 * transaction stops writes to tables, but FILE lets `LOAD_FILE` read any server file the
 * server can, SUPER and the admin privileges switch the server's own settings, PROCESS shows
 * every session's statements, and a write or DDL privilege leaves only the connector's own
 * layers (statement guard, read-only session and transaction) between a query and the data.
 * The server refuses what a login cannot do; so a login with any of these rights is refused
 * unless the connection explicitly opts in (`allow_privileged=1`), as PostgreSQL's is.
 *
 * Read from `SHOW GRANTS FOR CURRENT_USER` and, for every role granted to the login, enabled or
 * not, `SHOW GRANTS FOR` that role (which lists the grants of the roles it holds too): a role
 * merely granted is one `SET ROLE` away from being used.
 */

/** Privileges that only read: everything else, including ones a future server adds, is a danger. */
const readingPrivileges = new Set(['USAGE', 'SELECT', 'SHOW VIEW', 'SHOW DATABASES']);

export interface MysqlLoginPrivileges {
  /** `user@host` as the server names the login. */
  login: string;
  /** Each right beyond reading, e.g. "FILE on *.*", "INSERT on `shop`.* (through role writer)". */
  dangers: string[];
}

export async function readMysqlLoginPrivileges(connection: Connection): Promise<MysqlLoginPrivileges> {
  const [current] = await runOwnStatement(connection, 'SELECT CURRENT_USER()');
  const login = String(current?.[0] ?? '(unknown)');
  const own = (await runOwnStatement(connection, 'SHOW GRANTS FOR CURRENT_USER')).map((row) => String(row[0] ?? ''));
  const dangers = own.flatMap((line) => grantDangers(line, ''));
  const roles = [...new Set(own.flatMap(grantedRoles))].sort();
  if (roles.length > 0) {
    // Only a server with roles grants one, so CURRENT_ROLE() exists here (MySQL 5.7 has neither).
    const [role] = await runOwnStatement(connection, 'SELECT CURRENT_ROLE()');
    try {
      for (const granted of roles) dangers.push(...(await roleDangers(connection, granted)));
    } finally {
      await restoreRole(connection, role?.[0]);
    }
  }
  return { login, dangers: [...new Set(dangers)] };
}

/**
 * The rights beyond reading a directly granted role gives, the roles it holds included. The
 * server shows a role's grants only to a session that has it enabled (or that may read the
 * `mysql` tables), so the role is switched on for the look and the caller switches back. A
 * role whose grants stay unreadable counts as a danger: what it gives is unknown.
 */
async function roleDangers(connection: Connection, role: string): Promise<string[]> {
  try {
    await runOwnStatement(connection, `SET ROLE ${quoteName(role)}`);
    const lines = (await runOwnStatement(connection, `SHOW GRANTS FOR ${quoteName(role)}`)).map((row) => String(row[0] ?? ''));
    return lines.flatMap((line) => grantDangers(line, ` (through role ${role})`));
  } catch {
    return [`role ${role}, whose grants could not be read`];
  }
}

/** Puts the session back on the role it logged in with (its default role, or none). */
async function restoreRole(connection: Connection, original: unknown): Promise<void> {
  const role = typeof original === 'string' && original !== '' && original !== 'NONE' ? original : null;
  if (role === null) {
    await runOwnStatement(connection, 'SET ROLE NONE');
    return;
  }
  // MariaDB names the current role bare; MySQL 8 lists `r`@`%` forms, which SET ROLE DEFAULT restores.
  await runOwnStatement(connection, `SET ROLE ${quoteName(role)}`).catch(() => runOwnStatement(connection, 'SET ROLE DEFAULT'));
}

function quoteName(role: string): string {
  // MySQL 8 names roles user@host; MariaDB by a bare name.
  const at = role.lastIndexOf('@');
  const quote = (part: string): string => `\`${part.replace(/`/g, '``')}\``;
  return at > 0 ? `${quote(role.slice(0, at))}@${quote(role.slice(at + 1))}` : quote(role);
}

/** The code tokens of one SHOW GRANTS line (the lexer keeps quoted names apart from words). */
function codeOf(line: string): SqlToken[] {
  return scanMysqlSql(line).filter((token) => token.kind !== 'space' && token.kind !== 'comment');
}

const isWord = (token: SqlToken | undefined, word: string): boolean => token?.kind === 'word' && token.value.toUpperCase() === word;

/**
 * `GRANT \`role\` TO …` (no ON): the roles granted, else nothing. A role is a bare name on
 * MariaDB and `name@host` on MySQL 8.
 */
function grantedRoles(line: string): string[] {
  const tokens = codeOf(line);
  if (!isWord(tokens[0], 'GRANT') || tokens.some((token) => isWord(token, 'ON'))) return [];
  const to = tokens.findIndex((token) => isWord(token, 'TO'));
  const roles: string[] = [];
  let parts: string[] = [];
  for (const token of tokens.slice(1, to < 0 ? tokens.length : to)) {
    if (token.value === ',') {
      roles.push(parts.join(''));
      parts = [];
    } else parts.push(token.value);
  }
  if (parts.length > 0) roles.push(parts.join(''));
  return roles.filter((role) => role !== '');
}

/**
 * The rights beyond reading one `GRANT privileges ON object TO login [WITH GRANT OPTION]` line
 * gives, each as "PRIVILEGE on object"; `SET DEFAULT ROLE` and role grants give none here.
 */
function grantDangers(line: string, through: string): string[] {
  const tokens = codeOf(line);
  if (!isWord(tokens[0], 'GRANT')) return [];
  const on = tokens.findIndex((token) => isWord(token, 'ON'));
  const to = tokens.findIndex((token, index) => index > on && isWord(token, 'TO'));
  if (on < 0 || to < 0) return [];
  const object = line.slice(tokens[on + 1]?.start ?? 0, tokens[to]?.start ?? line.length).trim();
  const granted = privilegeNames(tokens.slice(1, on));
  const grantOption = tokens.slice(to).some((token, index, rest) => isWord(token, 'GRANT') && isWord(rest[index + 1], 'OPTION'));
  return [...granted.filter((name) => !readingPrivileges.has(name)), ...(grantOption ? ['GRANT OPTION'] : [])].map((name) => `${name} on ${object}${through}`);
}

/** "SELECT (`a`), UPDATE (`b`), SHOW VIEW" → ['SELECT', 'UPDATE', 'SHOW VIEW']: column lists dropped. */
function privilegeNames(tokens: SqlToken[]): string[] {
  const names: string[] = [];
  let words: string[] = [];
  let depth = 0;
  for (const token of tokens) {
    if (token.value === '(') depth += 1;
    else if (token.value === ')') depth -= 1;
    else if (depth === 0 && token.value === ',') {
      names.push(words.join(' '));
      words = [];
    } else if (depth === 0 && token.kind === 'word') words.push(token.value.toUpperCase());
  }
  if (words.length > 0) names.push(words.join(' '));
  return names.filter((name) => name !== '');
}

/** How to make a login the connector accepts without opting in (also in docs/read-only-logins.md). */
export const mysqlReadOnlyLoginRecipe =
  "CREATE USER 'dwb_reader'@'%' IDENTIFIED BY '…'; GRANT SELECT, SHOW VIEW ON mydb.* TO 'dwb_reader'@'%';";

export function privilegedMysqlLoginRefusal(privileges: MysqlLoginPrivileges): WorkbenchError {
  return new WorkbenchError(
    'read-only',
    `MySQL: refusing to connect as ${privileges.login} (${privileges.dangers.join(', ')}): with these rights only the connector's own checks ` +
      `stand between a query and the data, server files and settings. Connect with a read-only login instead: ${mysqlReadOnlyLoginRecipe} ` +
      'To connect with this login anyway, add ?allow_privileged=1 to the URL.',
  );
}

export function privilegedMysqlLoginWarning(privileges: MysqlLoginPrivileges): string {
  return (
    `WARNING: connected as privileged MySQL login ${privileges.login} (${privileges.dangers.join(', ')}) because allow_privileged=1 was given; ` +
    'the read-only transaction and statement guard still apply, but the server will not refuse what these rights allow. Use a read-only login (docs/read-only-logins.md).'
  );
}
