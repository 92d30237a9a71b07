/**
 * The what-if experiment on a COPY of DuckDB data (the DuckDB side of ./sandbox-session.ts):
 * for each candidate, inside a transaction that is always rolled back, measure the objective,
 * apply the change with the candidate bound as $candidate, measure again.
 *
 * The copy is a DuckDB database file: the byte copy of a `.duckdb` source, or, for a CSV or
 * Parquet source, a database built in the scratch folder from the byte copy of the file. It is
 * then opened writable but with external access off and the configuration locked, so no
 * statement can read or write any other file (COPY … TO, ATTACH, read_csv on a path). What the
 * statements may be is decided by DuckDB's parser: the change must be exactly one INSERT,
 * UPDATE or DELETE naming $candidate; the objective one SELECT returning one number.
 *
 * The statements are prepared once to check them, but planned afresh for every run: a plan
 * prepared on a freshly opened database may fold `count(*)` into the table's stored row
 * count, which a DELETE inside the experiment's transaction does not update (DuckDB 1.5).
 */
import { DuckDBDecimalValue, DuckDBInstance, StatementType, type DuckDBConnection, type DuckDBMaterializedResult, type DuckDBPreparedStatement, type DuckDBValue } from '@duckdb/node-api';
import { join } from 'node:path';
import { WorkbenchError } from '../contract/errors';
import type { Candidate } from '../contract/whatif';
import { lockedDownOptions, quoteIdentifier, tableNameForFile } from '../connectors/duckdb/open-database';
import type { CandidateMeasure, LabelledChange } from './sandbox-session';

export type DuckdbFormat = 'duckdb' | 'csv' | 'parquet';

const CHANGE_TYPES = new Set([StatementType.INSERT, StatementType.UPDATE, StatementType.DELETE]);

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A CSV or Parquet copy becomes a database of one table named after the file, as the connector shows it. */
async function databaseFromFile(copyPath: string, format: 'csv' | 'parquet'): Promise<string> {
  const databasePath = join(copyPath, '..', 'sandbox.duckdb');
  const builder = await DuckDBInstance.create(databasePath, { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
  try {
    const connection = await builder.connect();
    try {
      const reader = format === 'csv' ? 'read_csv' : 'read_parquet';
      await connection.run(`CREATE TABLE ${quoteIdentifier(tableNameForFile(copyPath))} AS SELECT * FROM ${reader}('${copyPath.replace(/'/g, "''")}')`);
    } finally {
      connection.closeSync();
    }
  } finally {
    builder.closeSync();
  }
  return databasePath;
}

/** SQLite's `:candidate` or `@candidate` where DuckDB reads only `$candidate`: said with the parser's message. */
const FOREIGN_PARAMETER = /[:@]candidate\b/;

/** MySQL's backtick-quoted identifiers, which DuckDB does not read. */
const BACKTICK = /`/;

function compileError(error: unknown, text: string, role: string): WorkbenchError {
  const hints = [
    FOREIGN_PARAMETER.test(text) ? "write the candidate as $candidate (DuckDB's parameters are $name)" : null,
    BACKTICK.test(text) ? 'quote names with double quotes, not backticks (the statements are DuckDB SQL)' : null,
  ].filter((hint): hint is string => hint !== null);
  return new WorkbenchError('syntax', `${role}: DuckDB: ${messageOf(error)}${hints.map((hint) => `; ${hint}`).join('')}`);
}

async function prepareOne(connection: DuckDBConnection, text: string, role: string): Promise<DuckDBPreparedStatement> {
  let extracted;
  try {
    extracted = await connection.extractStatements(text);
  } catch (error) {
    throw compileError(error, text, role);
  }
  if (extracted.count !== 1) throw new WorkbenchError('invalid-request', `the ${role} must be a single SQL statement`);
  try {
    return await extracted.prepare(0);
  } catch (error) {
    throw compileError(error, text, role);
  }
}

function parameterNames(statement: DuckDBPreparedStatement): string[] {
  return Array.from({ length: statement.parameterCount }, (_, index) => statement.parameterName(index + 1));
}

interface CheckedStatement {
  text: string;
  bindsCandidate: boolean;
}

export class DuckdbSession {
  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly connection: DuckDBConnection,
    private readonly changes: readonly (CheckedStatement & { label: string })[],
    private readonly objective: CheckedStatement,
  ) {}

  static async open(copyPath: string, format: DuckdbFormat, changeText: string, objectiveText: string): Promise<DuckdbSession> {
    return DuckdbSession.openScenarios(copyPath, format, [{ label: 'change', text: changeText }], objectiveText, { candidateRequired: true });
  }

  /**
   * Several labelled changes, validated once; `evaluateSteps` applies a scenario's. A plain
   * what-if has one change, which must name $candidate; a scenario's changes need not.
   */
  static async openScenarios(copyPath: string, format: DuckdbFormat, changeTexts: readonly LabelledChange[], objectiveText: string, { candidateRequired = false } = {}): Promise<DuckdbSession> {
    const databasePath = format === 'duckdb' ? copyPath : await databaseFromFile(copyPath, format);
    const instance = await DuckDBInstance.create(databasePath, lockedDownOptions);
    const connection = await instance.connect();
    try {
      const changes: (CheckedStatement & { label: string })[] = [];
      const names: string[] = [];
      for (const { label, text } of changeTexts) {
        const change = await prepareOne(connection, text, label);
        if (!CHANGE_TYPES.has(change.statementType)) {
          throw new WorkbenchError('invalid-request', `${label === 'change' ? 'the change' : label} must be one INSERT, UPDATE or DELETE; queries, COPY, ATTACH, schema changes and transaction control are refused`);
        }
        const changeParameters = parameterNames(change);
        if (candidateRequired && !changeParameters.includes('candidate')) {
          throw new WorkbenchError('invalid-request', 'the change must use the $candidate parameter (DuckDB writes parameters as $name), otherwise every candidate would be the same experiment');
        }
        names.push(...changeParameters);
        changes.push({ label, text, bindsCandidate: change.parameterCount > 0 });
        change.destroySync();
      }
      const objective = await prepareOne(connection, objectiveText, 'objective');
      if (objective.statementType !== StatementType.SELECT) throw new WorkbenchError('invalid-request', 'the objective must be a read-only query (SELECT) that returns one number');
      for (const name of [...names, ...parameterNames(objective)]) {
        if (name !== 'candidate') throw new WorkbenchError('invalid-request', `only $candidate can be bound; the statements also name $${name}`);
      }
      const session = new DuckdbSession(instance, connection, changes, { text: objectiveText, bindsCandidate: objective.parameterCount > 0 });
      objective.destroySync();
      return session;
    } catch (error) {
      connection.closeSync();
      instance.closeSync();
      throw error;
    }
  }

  private run(statement: CheckedStatement, candidate: Candidate): Promise<DuckDBMaterializedResult> {
    return this.connection.run(statement.text, statement.bindsCandidate ? { candidate: candidate as DuckDBValue } : undefined);
  }

  private async measure(candidate: Candidate, when: 'before' | 'after'): Promise<number> {
    let rows: unknown[][];
    try {
      rows = (await (await this.run(this.objective, candidate)).getRows()) as unknown[][];
    } catch (error) {
      throw new WorkbenchError('query-failed', `objective ${when} candidate ${String(candidate)}: DuckDB: ${messageOf(error)}`);
    }
    if (rows.length !== 1 || rows[0]?.length !== 1) {
      throw new WorkbenchError('invalid-request', `the objective must return exactly one number (one row, one column); ${when} candidate ${String(candidate)} it returned ${rows.length} row(s) of ${rows[0]?.length ?? 0} column(s)`);
    }
    const value = rows[0][0];
    const number = value instanceof DuckDBDecimalValue ? value.toDouble() : typeof value === 'bigint' ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isFinite(number)) {
      throw new WorkbenchError('invalid-request', `the objective must return a finite number; ${when} candidate ${String(candidate)} it returned ${value === null ? 'NULL' : typeof value === 'string' ? JSON.stringify(value) : String(value)}`);
    }
    return number;
  }

  /** One experiment; rolled back whatever happens, so the copy is pristine for the next. */
  async evaluate(candidate: Candidate): Promise<CandidateMeasure> {
    return this.evaluateSteps([0], candidate);
  }

  /** The changes numbered `steps`, in that order, in one transaction that is always rolled back. */
  async evaluateSteps(steps: readonly number[], candidate: Candidate): Promise<CandidateMeasure> {
    await this.connection.run('BEGIN TRANSACTION');
    try {
      const before = await this.measure(candidate, 'before');
      let changedRows = 0;
      for (const step of steps) {
        const change = this.changes[step];
        if (!change) throw new WorkbenchError('internal', `no change number ${step} in this sandbox session`);
        try {
          changedRows += (await this.run(change, candidate)).rowsChanged;
        } catch (error) {
          throw new WorkbenchError('query-failed', `${change.label} for candidate ${String(candidate)}: DuckDB: ${messageOf(error)}`);
        }
      }
      const after = await this.measure(candidate, 'after');
      return { before, after, changedRows };
    } finally {
      await this.connection.run('ROLLBACK');
    }
  }

  close(): void {
    this.connection.closeSync();
    this.instance.closeSync();
  }
}
