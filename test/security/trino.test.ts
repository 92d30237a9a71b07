import { afterAll, beforeAll, expect, it } from 'vitest';

import { openTrinoConnector } from '../../src-main/connectors/trino';
import { loadTrinoFixture, trinoFingerprint } from '../integration/connectors/trino-fixture';
import { startTrino, whyTrinoUnavailable, type TrinoTestServer } from '../servers';
import { describeOrNotRun } from '../servers/not-run';
import { generateAttempts } from './attack-generator';
import { reportTally, runAttempts } from './attack-runner';

/**
 * Generated write attempts against a real Trino coordinator, through the connector logged in as
 * the admin (every right, so nothing but the connector's layers and Trino's read-only
 * transaction stands in the way), then the same attempts as the read-only user. Each must be
 * refused, and the admin's fingerprint of tables, schemas, rows and comments must not change.
 * Prints `security trino (…): N attempts, N refused, 0 executed, data unchanged`.
 */
const unavailable = whyTrinoUnavailable();
let server: TrinoTestServer | null = null;

beforeAll(async () => {
  if (unavailable !== null) return;
  server = await startTrino();
  if (server === null) throw new Error('Trino vanished between the check and the start');
  await loadTrinoFixture(server.adminUri);
}, 240_000);

afterAll(async () => {
  await server?.stop();
}, 60_000);

const writes: Record<string, string> = {
  INSERT: "INSERT INTO nodes VALUES (99, 'Evil', 'x')",
  UPDATE: "UPDATE nodes SET name = 'Evil'",
  DELETE: 'DELETE FROM trades',
  'DROP TABLE': 'DROP TABLE trades',
  'CREATE TABLE AS': 'CREATE TABLE evil AS SELECT * FROM nodes',
  'CREATE TABLE in another catalog': 'CREATE TABLE lake.sales.evil (id integer)',
  'ALTER TABLE RENAME': 'ALTER TABLE nodes RENAME TO evil',
  'DROP SCHEMA CASCADE': 'DROP SCHEMA lake.sales CASCADE',
  'COMMENT ON TABLE': "COMMENT ON TABLE nodes IS 'evil'",
  'CALL a procedure': "CALL system.runtime.kill_query(query_id => 'x', message => 'evil')",
};

async function attack(label: string, uri: string): Promise<void> {
  const admin = server?.adminUri ?? '';
  const before = await trinoFingerprint(admin);
  const connector = await openTrinoConnector({ url: `${uri}/wb` });
  let tally;
  try {
    tally = await runAttempts(`trino (${label})`, connector, generateAttempts('trino', writes));
  } finally {
    await connector.close();
  }
  const unchanged = (await trinoFingerprint(admin)) === before;
  reportTally(tally, unchanged ? 'data unchanged' : 'DATA CHANGED');
  expect(unchanged).toBe(true);
}

describeOrNotRun('security: Trino', unavailable, () => {
  it('refuses every generated write as the admin login; data, schemas and comments unchanged', async () => {
    await attack('admin login', server?.adminUri ?? '');
  }, 300_000);

  it('refuses every generated write as the read-only login', async () => {
    await attack('read-only login', server?.uri ?? '');
  }, 300_000);
});
