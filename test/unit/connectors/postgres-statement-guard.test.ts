/**
 * The PostgreSQL connector's text guard without a server: how it reads names the way
 * PostgreSQL does (case folding, quoting, U& escapes with UESCAPE, nested comments, a `--`
 * comment ended by a carriage return) and refuses every function with effects outside the
 * read-only transaction however it is spelt. The same forms against a real server, with a
 * superuser login opted in, are in test/integration/connectors/postgres.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { checkPostgresStatement } from '../../../src-main/connectors/postgres/statement-guard';
import { WorkbenchError } from '../../../src-main/contract/errors';

function refusal(text: string): WorkbenchError | null {
  try {
    checkPostgresStatement(text);
    return null;
  } catch (error) {
    return error as WorkbenchError;
  }
}

/** A function name spelt every way PostgreSQL reads as the same function. */
function spellings(name: string): string[] {
  const escaped = [...name].map((character, index) => (index % 2 === 0 ? `\\${character.charCodeAt(0).toString(16).padStart(4, '0')}` : character)).join('');
  const bang = [...name].map((character) => `!${character.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
  return [
    name,
    name.toUpperCase(),
    `"${name}"`,
    `pg_catalog.${name}`,
    `PUBLIC."${name}"`,
    `U&"${escaped}"`,
    `u&"${bang}" UESCAPE '!'`,
    `${name} /* a /* nested */ comment */`,
    `${name} -- a comment ended by a carriage return\r`,
  ];
}

describe('PostgreSQL statement guard (no server)', () => {
  it('lets plain reads through', () => {
    for (const text of ['SELECT 1', 'select name from nodes where id = 1', 'WITH t AS (SELECT 1 AS x) SELECT x FROM t', 'VALUES (1), (2)', 'TABLE nodes', 'SHOW search_path', "EXPLAIN SELECT * FROM nodes", "SELECT 'ts_rewrite(' AS text_not_a_call", 'SELECT "query_to_xml" FROM t']) {
      expect(refusal(text), text).toBeNull();
    }
  });

  it('refuses every function that runs a query given as text, reads a cursor or signals other sessions, however it is spelt', () => {
    const functions = ['query_to_xml', 'query_to_xmlschema', 'query_to_xml_and_xmlschema', 'ts_stat', 'ts_rewrite', 'cursor_to_xml', 'cursor_to_xmlschema', 'pg_notify', 'dblink_exec', 'pg_terminate_backend', 'pg_stat_reset', 'pg_read_file', 'set_config', 'pg_sync_replication_slots'];
    let attempts = 0;
    for (const name of functions) {
      for (const spelt of spellings(name)) {
        const text = `SELECT ${spelt}('SELECT 1')`;
        const error = refusal(text);
        expect(error, text).toBeInstanceOf(WorkbenchError);
        expect(error?.code, text).toBe('read-only');
        expect(error?.message, text).toContain(`${name}()`);
        attempts += 1;
      }
    }
    expect(attempts).toBe(functions.length * 9);
  });

  // Issue 26, item 5: lo_create and lo_from_bytea ran inside the read-only transaction; only the rollback undid them.
  it('refuses every large-object function, however it is spelt', () => {
    const functions = ['lo_create', 'lo_creat', 'lo_from_bytea', 'lo_put', 'lo_get', 'lo_open', 'lo_close', 'loread', 'lowrite', 'lo_lseek', 'lo_lseek64', 'lo_tell', 'lo_tell64', 'lo_truncate', 'lo_truncate64', 'lo_unlink'];
    for (const name of functions) {
      for (const spelt of spellings(name)) {
        const text = `SELECT ${spelt}(0)`;
        const error = refusal(text);
        expect(error?.code, text).toBe('read-only');
        expect(error?.message, text).toContain(`${name}() is not allowed: the connector runs no large-object functions`);
      }
    }
    expect(refusal('SELECT lo_import(\'/etc/hostname\')')?.message).toContain('effects outside the read-only transaction');
    expect(refusal("SELECT 'lo_create(0)' AS text, lo_size FROM t")).toBeNull();
  });

  it('refuses the two-argument ts_rewrite hiding a dblink DELETE (found by the issue-17 audit)', () => {
    const text = "SELECT ts_rewrite('a'::tsquery, 'SELECT ''a''::tsquery, ''b''::tsquery FROM dblink_exec(''host=x'', ''DELETE FROM trades'') AS d')";
    expect(refusal(text)?.message).toMatch(/ts_rewrite\(\) is not allowed/);
  });

  it('reads the statement that follows a comment the way PostgreSQL does', () => {
    for (const text of ['/* /* */ SELECT 1 */ DELETE FROM nodes', '-- comment\rDELETE FROM nodes', 'SELECT 1; DELETE FROM nodes', '/**/COPY nodes TO PROGRAM \'id\'']) {
      expect(refusal(text)?.code, text).toBe('read-only');
    }
  });
});
