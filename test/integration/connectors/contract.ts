import { withNameSuggestions } from '../../../src-main/connectors/shared/unknown-names';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { CellValue, SchemaInfo } from '../../../src-main/contract/data';
import { WorkbenchError, type ErrorCode } from '../../../src-main/contract/errors';
import type { Connector } from '../../../src-main/connectors/connector';
import { nodeNamesIn, tradeNodes, trades } from './fixture-data';

/** One write attempt: `text` must be refused and leave the data unchanged. */
export interface WriteAttempt {
  name: string;
  text: string;
  /** Run first, outcome ignored: a setting that tries to make the following write possible. */
  before?: string;
  /** Codes accepted for the refusal; 'read-only' when not given. */
  codes?: ErrorCode[];
}

/** Everything the shared suite needs from one engine. */
export interface ContractFixture {
  connector: Connector;
  /** All nodes, ordered by id, columns id, name, region. */
  selectNodes: string;
  /** Names of nodes whose region equals $region, ordered by id, one column. */
  nodesInRegion: string;
  /** At least 50 rows. */
  manyRows: string;
  /** Runs for many seconds unless stopped. */
  slowQuery: string;
  syntaxError: { text: string; messageIncludes: string };
  /** Queries naming a table, column, label or property the fixture lacks, and what the error must say (the name, a suggestion). */
  unknownNames: { text: string; messageIncludes: string[] }[];
  /** A digest of all data and schema, read through a separate (writable) admin path. */
  fingerprint(): Promise<string>;
  dispose(): Promise<void>;
}

export interface ContractOptions {
  /** Non-null when the engine cannot run here: the suite is reported as not run, with this reason. */
  unavailable: string | null;
  setup(): Promise<ContractFixture>;
  /** Known before setup so each attempt is its own test in the report. */
  writeAttempts: WriteAttempt[];
  /** Files a write attempt might create; none may exist afterwards. */
  forbiddenPaths?: string[];
  /** Hook time for setup (server start); generous because CI has two cores. */
  setupTimeoutMs?: number;
  /**
   * The engine has no key constraints (Trino): the schema must then report no primary key and
   * no reference for any column, instead of the fixture's keys.
   */
  withoutKeyConstraints?: boolean;
}

/** Cells compared as numbers when numeric text (exact decimals may come back as strings). */
function normalise(value: CellValue): CellValue {
  return typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
}

async function expectRefusal(promise: Promise<unknown>, codes: ErrorCode[]): Promise<WorkbenchError> {
  let caught: unknown = null;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught, 'the query should have been refused').toBeInstanceOf(WorkbenchError);
  const error = caught as WorkbenchError;
  expect(codes, `unexpected code '${error.code}': ${error.message}`).toContain(error.code);
  return error;
}

/**
 * The contract every connector meets, run against a real engine loaded with the trade-node
 * fixture. When the engine is unavailable the suite shows as a single skipped test named
 * after the reason, so a run without servers says plainly what did not run.
 */
export function runConnectorContract(name: string, options: ContractOptions): void {
  if (options.unavailable !== null) {
    const reason = options.unavailable;
    describe(name, () => {
      it.skip(`NOT RUN: ${reason}`, () => undefined);
    });
    console.warn(`[connector contract] ${name}: suite not run: ${reason}`);
    return;
  }

  describe(name, () => {
    let fixture: ContractFixture;
    let baseline: string;
    const query = (text: string, extra: Partial<Parameters<Connector['query']>[1]> = {}) =>
      fixture.connector.query(text, { maxRows: 1000, timeoutMs: 20_000, ...extra });

    beforeAll(async () => {
      fixture = await options.setup();
      baseline = await fixture.fingerprint();
    }, options.setupTimeoutMs ?? 180_000);

    afterAll(async () => {
      await fixture?.dispose();
    }, 60_000);

    it('lists the fixture in the schema with counts', async () => {
      const schema: SchemaInfo = await fixture.connector.schema();
      if (schema.kind === 'relational') {
        const nodes = schema.tables.find((table) => table.name === 'nodes');
        const tradesTable = schema.tables.find((table) => table.name === 'trades');
        expect(nodes?.rowCount).toBe(tradeNodes.length);
        expect(tradesTable?.rowCount).toBe(trades.length);
        expect(nodes?.kind).toBe('table');
        expect(nodes?.columns.map((column) => column.name)).toEqual(['id', 'name', 'region']);
        expect(nodes?.columns[0]?.primaryKey).toBe(options.withoutKeyConstraints === true ? 0 : 1);
        expect(nodes?.columns[1]?.nullable).toBe(false);
        expect(tradesTable?.columns.find((column) => column.name === 'seller_id')?.references).toBe(options.withoutKeyConstraints === true ? undefined : 'nodes.id');
      } else {
        const node = schema.labels.find((label) => label.name === 'Node');
        const trade = schema.relationshipTypes.find((type) => type.name === 'TRADES');
        expect(node?.count).toBe(tradeNodes.length);
        expect(trade?.count).toBe(trades.length);
        expect(node?.properties.map((property) => property.name).sort()).toEqual(expect.arrayContaining(['id', 'name', 'region']));
        expect(trade?.properties.map((property) => property.name)).toEqual(expect.arrayContaining(['qty', 'price']));
        expect(trade?.endpoints).toEqual(['Node->Node']);
      }
    });

    it('returns the right rows for a read', async () => {
      const result = await query(fixture.selectNodes);
      expect(result.columns.map((column) => column.name)).toEqual(['id', 'name', 'region']);
      expect(result.rows.map((row) => row.map(normalise))).toEqual(tradeNodes.map((node) => [node.id, node.name, node.region]));
      expect(result.rowCount).toBe(tradeNodes.length);
      expect(result.truncated).toBe(false);
      expect(result.elapsedMs).toBeGreaterThanOrEqual(0);
    });

    it('binds named parameters', async () => {
      for (const region of ['north', 'south', 'nowhere']) {
        const result = await query(fixture.nodesInRegion, { params: { region } });
        expect(result.rows.map((row) => row[0])).toEqual(nodeNamesIn(region));
      }
      // A value that looks like SQL/Cypher stays a value.
      const injected = await query(fixture.nodesInRegion, { params: { region: "north' OR '1'='1" } });
      expect(injected.rows).toEqual([]);
    });

    it('caps rows and says the result was truncated', async () => {
      const capped = await query(fixture.manyRows, { maxRows: 7 });
      expect(capped.rowCount).toBe(7);
      expect(capped.rows).toHaveLength(7);
      expect(capped.truncated).toBe(true);
      const exact = await query(fixture.selectNodes, { maxRows: tradeNodes.length });
      expect(exact.truncated).toBe(false);
      expect(exact.rowCount).toBe(tradeNodes.length);
    });

    it('stops a slow query at its timeout with code timeout', async () => {
      const started = Date.now();
      await expectRefusal(query(fixture.slowQuery, { timeoutMs: 1000 }), ['timeout']);
      expect(Date.now() - started).toBeLessThan(15_000);
      // The connector is still usable afterwards.
      expect((await query(fixture.selectNodes)).rowCount).toBe(tradeNodes.length);
    }, 60_000);

    it('cancels a slow query through its AbortSignal', async () => {
      const controller = new AbortController();
      const started = Date.now();
      setTimeout(() => controller.abort(), 500);
      await expectRefusal(query(fixture.slowQuery, { signal: controller.signal, timeoutMs: 30_000 }), ['cancelled']);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect((await query(fixture.selectNodes)).rowCount).toBe(tradeNodes.length);
      // A signal aborted before the call refuses at once.
      await expectRefusal(query(fixture.selectNodes, { signal: AbortSignal.abort() }), ['cancelled']);
    }, 60_000);

    it('reports a syntax error with the engine message', async () => {
      const error = await expectRefusal(query(fixture.syntaxError.text), ['syntax', 'query-failed']);
      expect(error.message).toContain(fixture.syntaxError.messageIncludes);
    });

    it('names an unknown table, column, label or property as unknown-object, with the closest names', async () => {
      // The same wrapper openConnector puts around every engine.
      const suggesting = withNameSuggestions(fixture.connector);
      for (const unknown of fixture.unknownNames) {
        const error = await expectRefusal(suggesting.query(unknown.text, { maxRows: 1000, timeoutMs: 20_000 }), ['unknown-object']);
        for (const part of unknown.messageIncludes) expect(error.message).toContain(part);
      }
      expect(fixture.unknownNames.length).toBeGreaterThanOrEqual(2);
    });

    describe('refuses every write and leaves the data unchanged', () => {
      it.each(options.writeAttempts)('refuses $name', async (attempt) => {
        if (attempt.before !== undefined) await query(attempt.before).catch(() => undefined);
        const refusal = await expectRefusal(query(attempt.text), attempt.codes ?? ['read-only']);
        // DWB_CONTRACT_LOG=1 prints which layer refused what (the message names it).
        if (process.env.DWB_CONTRACT_LOG === '1') console.info(`[refused] ${name} | ${attempt.name} | ${refusal.code} | ${refusal.message.split('\n')[0]}`);
        const now = await fixture.fingerprint();
        const changed = now !== baseline;
        baseline = now; // one failure must not cascade into every later attempt
        expect(changed, 'data or schema changed').toBe(false);
      }, 60_000);

      it('created none of the files the attempts aimed at', () => {
        expect((options.forbiddenPaths ?? []).filter((path) => existsSync(path))).toEqual([]);
      });
    });
  });
}

/** Digest of every file under a directory (names, sizes and bytes): detects any file write. */
export function digestDirectory(dir: string): string {
  const hash = createHash('sha256');
  const walk = (current: string): void => {
    for (const entry of readdirSync(current).sort()) {
      const path = join(current, entry);
      const stats = statSync(path);
      hash.update(`${path}:${stats.size}\n`);
      if (stats.isDirectory()) walk(path);
      else hash.update(readFileSync(path));
    }
  };
  walk(dir);
  return hash.digest('hex');
}

export function digestRows(rows: unknown): string {
  return createHash('sha256').update(JSON.stringify(rows, (_, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))).digest('hex');
}
