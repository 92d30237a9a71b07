import neo4j, { type Driver, type Record as Neo4jRecord, type Session } from 'neo4j-driver';

import type { QueryResult, SchemaInfo } from '../../contract/data';
import { WorkbenchError } from '../../contract/errors';
import type { Connector, QueryOptions } from '../connector';
import { neo4jTypeName, toNeo4jCell, toNeo4jParameter } from './cell-values';
import { toWorkbenchError } from './errors';
import { throwIfAborted } from '../shared/interruption';
import { runInterruptible, serverFirstGraceMs } from '../shared/interruptible-run';
import { explainPrefix, explainTextFor } from '../shared/cypher-text';
import { checkExplainedQuery, withoutExplainPrefix } from './plan-check';
import { readNeo4jSchema } from './schema';

const schemaTimeoutMs = 30_000;
/** Records the driver pulls per round trip at most; smaller caps pull exactly cap + 1. */
const maxFetchSize = 1000;

/**
 * A read-only Neo4j connector. Each query gets its own READ access-mode session (the server
 * refuses writes in it), is first planned with EXPLAIN and vetted, then runs in an explicit
 * transaction with a server-side timeout and is rolled back.
 */
export class Neo4jConnector implements Connector {
  readonly engine = 'neo4j' as const;
  readonly dialect = 'cypher' as const;
  private closed = false;

  constructor(private readonly driver: Driver, private readonly database: string | undefined) {}

  async schema(): Promise<SchemaInfo> {
    return readNeo4jSchema(async (cypher) => {
      const records = await this.readInternal(cypher);
      return records.map((record) => record.toObject() as Record<string, unknown>);
    });
  }

  async query(text: string, options: QueryOptions): Promise<QueryResult> {
    this.requireOpen();
    throwIfAborted(options.signal, 'Neo4j');
    const started = performance.now();
    const params = toNeo4jParameter(options.params ?? {}) as Record<string, unknown>;
    const session = this.readSession(Math.min(options.maxRows + 1, maxFetchSize));
    try {
      const { keys, records } = await runInterruptible({
        engine: 'Neo4j',
        timeoutMs: options.timeoutMs,
        // The transaction timeout stops the query first; the client steps in only if it did not.
        deadlineMs: options.timeoutMs + serverFirstGraceMs,
        signal: options.signal,
        run: async () => {
          const unknown = await this.vet(session, text, params, options.timeoutMs);
          const read = await this.readCapped(session, text, params, options.maxRows + 1, options.timeoutMs);
          // Neo4j only warns about names it does not know; with no rows that warning is the answer.
          if (read.records.length === 0 && unknown.length > 0) throw unknownNamesError(unknown);
          return read;
        },
        // Closing the session sends RESET, which makes the server terminate the running
        // transaction. Not awaited: with the network gone it would never settle.
        interrupt: async () => void session.close().catch(() => undefined),
        abandon: () => undefined,
        toError: toWorkbenchError,
      });
      const kept = records.slice(0, options.maxRows);
      return {
        columns: keys.map((key) => ({ name: key, type: neo4jTypeName(kept.find((record) => record.get(key) !== null)?.get(key)) })),
        rows: kept.map((record) => keys.map((key) => toNeo4jCell(record.get(key)))),
        rowCount: kept.length,
        truncated: records.length > options.maxRows,
        elapsedMs: performance.now() - started,
      };
    } finally {
      void session.close().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.driver.close();
  }

  private requireOpen(): void {
    if (this.closed) throw new WorkbenchError('connection-failed', 'Neo4j: connector is closed');
  }

  private readSession(fetchSize: number): Session {
    return this.driver.session({ defaultAccessMode: neo4j.session.READ, database: this.database, fetchSize });
  }

  /** Plans the query with EXPLAIN (nothing executes) and refuses what is not plainly a read. */
  private async vet(session: Session, text: string, params: Record<string, unknown>, timeoutMs: number): Promise<UnknownName[]> {
    const transaction = session.beginTransaction({ timeout: timeoutMs });
    const explainText = explainTextFor(text);
    try {
      const explained = await transaction.run(explainText, params);
      checkExplainedQuery(explained.summary);
      return unknownNamesIn(explained.summary.notifications);
    } catch (error) {
      const mapped = toWorkbenchError(error);
      if (mapped.code !== 'syntax' || !explainText.startsWith(explainPrefix) || text.startsWith(explainPrefix)) throw mapped;
      throw new WorkbenchError('syntax', withoutExplainPrefix(mapped.message), { cause: error });
    } finally {
      await transaction.rollback().catch(() => undefined);
    }
  }

  /** Streams records and stops after `limit`; the rollback discards the rest unread. */
  private async readCapped(session: Session, text: string, params: Record<string, unknown>, limit: number, timeoutMs: number): Promise<{ keys: string[]; records: Neo4jRecord[] }> {
    const transaction = session.beginTransaction({ timeout: timeoutMs, metadata: { app: 'decision-workbench' } });
    try {
      const result = transaction.run(text, params);
      const keys = (await result.keys()).map(String);
      const records: Neo4jRecord[] = [];
      for await (const record of result) {
        records.push(record);
        if (records.length >= limit) break;
      }
      return { keys, records };
    } finally {
      await transaction.rollback().catch(() => undefined);
    }
  }

  private async readInternal(cypher: string): Promise<Neo4jRecord[]> {
    this.requireOpen();
    const session = this.readSession(maxFetchSize);
    try {
      const transaction = session.beginTransaction({ timeout: schemaTimeoutMs });
      try {
        return (await transaction.run(cypher)).records;
      } finally {
        await transaction.rollback().catch(() => undefined);
      }
    } catch (error) {
      throw toWorkbenchError(error);
    } finally {
      await session.close().catch(() => undefined);
    }
  }
}

interface UnknownName {
  kind: 'label' | 'relationship type' | 'property';
  name: string;
}

const unknownNameWarnings: Record<string, UnknownName['kind']> = {
  'Neo.ClientNotification.Statement.UnknownLabelWarning': 'label',
  'Neo.ClientNotification.Statement.UnknownRelationshipTypeWarning': 'relationship type',
  'Neo.ClientNotification.Statement.UnknownPropertyKeyWarning': 'property',
};

/** The labels, relationship types and property keys the planner warned it does not know. */
function unknownNamesIn(notifications: readonly { code: string; description: string }[]): UnknownName[] {
  const names: UnknownName[] = [];
  for (const notification of notifications) {
    const kind = unknownNameWarnings[notification.code];
    // The description ends "(the missing label name is: Nodee)".
    const name = /\(the missing [\w ]+? is: ([^)]+)\)/.exec(notification.description)?.[1];
    if (kind !== undefined && name !== undefined) names.push({ kind, name: name.trim() });
  }
  return names;
}

function unknownNamesError(names: readonly UnknownName[]): WorkbenchError {
  const said = names.map((unknown) => `the ${unknown.kind} ${unknown.name} does not exist in the database`).join('; ');
  return new WorkbenchError('unknown-object', `Neo4j: ${said} (the query returned no rows)`);
}
