/**
 * The MySQL/MariaDB connector's text guard without a server: SELECT … INTO a variable (issue 26,
 * item 6) and INTO OUTFILE/DUMPFILE are refused however they are written, while INTO inside a
 * string, a comment or a quoted name is not an INTO clause. The same against a real MariaDB is in
 * test/integration/connectors/mysql.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { checkMysqlStatement } from '../../../src-main/connectors/mysql/statement-guard';
import { WorkbenchError } from '../../../src-main/contract/errors';

function refusal(text: string): WorkbenchError | null {
  try {
    checkMysqlStatement(text);
    return null;
  } catch (error) {
    return error as WorkbenchError;
  }
}

const variableRefusal = 'MySQL: SELECT … INTO a variable is not allowed: it assigns session variables instead of returning rows; select the value itself';

describe('MySQL statement guard: INTO (no server)', () => {
  it.each([
    'SELECT 1 INTO @v',
    'select 1 into @v',
    'SELECT 1, 2 INTO @a, @b',
    'SELECT id FROM nodes ORDER BY id LIMIT 1 INTO @v',
    'SELECT id INTO @v FROM nodes LIMIT 1',
    'WITH t AS (SELECT 1 AS x) SELECT x INTO @v FROM t',
    '/* c */ SELECT 1 INTO @v',
    'SELECT 1 /*!INTO @v */',
    'SELECT 1 /*M!100000 INTO @v */',
    '(SELECT 1 INTO @v)',
    'SELECT 1 INTO `v`',
    'SELECT 1\nINTO\n@v',
  ])('refuses %j as read-only', (text) => {
    const error = refusal(text);
    expect(error).toBeInstanceOf(WorkbenchError);
    expect(error?.code).toBe('read-only');
    expect(error?.message).toBe(variableRefusal);
  });

  it('names the file for INTO OUTFILE and INTO DUMPFILE', () => {
    expect(refusal("SELECT * FROM nodes INTO OUTFILE '/tmp/x'")?.message).toBe('MySQL: SELECT … INTO OUTFILE is not allowed: it writes a file on the server');
    expect(refusal("SELECT 'x' INTO dumpfile '/tmp/x'")?.message).toBe('MySQL: SELECT … INTO DUMPFILE is not allowed: it writes a file on the server');
  });

  it('lets INTO in a string, a comment or a quoted name through', () => {
    for (const text of ["SELECT 'INTO @v' AS x", 'SELECT 1 AS `into` /* INTO @v */', 'SELECT 1 -- INTO @v\n', 'SELECT 1 # INTO @v', 'SELECT "into" FROM t']) {
      expect(refusal(text), text).toBeNull();
    }
  });
});
