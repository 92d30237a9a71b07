/**
 * Runs the what-if experiment on a COPY of the database (never the source): for each
 * candidate, inside one transaction that is always rolled back, measure the objective,
 * apply the change with the candidate bound as :candidate, measure again. Synchronous
 * (better-sqlite3); worker.ts runs it in a killable process.
 *
 * What the statements may be is decided by SQLite's compiler, not by reading the text:
 * - the change must compile to ONE statement that writes (sqlite3_stmt_readonly false), which
 *   excludes queries, ATTACH/DETACH and transaction control (all "read-only" to SQLite), so a
 *   change can neither reach another file nor commit or end the rollback transaction;
 * - the objective must be one read-only statement that returns rows.
 *
 * A scenario session (DeLLMa's exact outcomes) holds several labelled changes and applies
 * the ones a scenario names, in order, inside the same rolled-back transaction; there a
 * change need not name :candidate (e.g. "demand is low": UPDATE sales SET qty = qty * 0.8).
 */
import type Database from 'better-sqlite3';
import { WorkbenchError } from '../contract/errors';
import { openSqliteFile } from '../native/better-sqlite3';
import type { Candidate } from '../contract/whatif';

export interface CandidateMeasure {
  before: number;
  after: number;
  changedRows: number;
}

export const CANDIDATE_PARAMETER = /[:@$]candidate\b/;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A change of a scenario session, with the name its errors use (e.g. `demand = low`). */
export interface LabelledChange {
  label: string;
  text: string;
}

function prepareOne(database: Database.Database, text: string, role: string): Database.Statement {
  try {
    return database.prepare(text);
  } catch (error) {
    const message = messageOf(error);
    if (message.includes('more than one statement')) throw new WorkbenchError('invalid-request', `the ${role} must be a single SQL statement`);
    throw new WorkbenchError('syntax', `${role}: SQLite: ${message}`);
  }
}

/** Whole numbers bind as SQL integers (better-sqlite3 binds every JS number as REAL otherwise). */
function bindable(candidate: Candidate): string | number | bigint {
  return typeof candidate === 'number' && Number.isSafeInteger(candidate) ? BigInt(candidate) : candidate;
}

export class SandboxSession {
  private constructor(
    private readonly database: Database.Database,
    private readonly changes: readonly { label: string; statement: Database.Statement }[],
    private readonly objective: Database.Statement,
  ) {}

  /** Opens the copy at `copyPath` writable and validates both statements. */
  static open(copyPath: string, changeText: string, objectiveText: string): SandboxSession {
    if (!CANDIDATE_PARAMETER.test(changeText)) throw new WorkbenchError('invalid-request', 'the change must use the :candidate parameter (otherwise every candidate would be the same experiment)');
    return SandboxSession.openScenarios(copyPath, [{ label: 'change', text: changeText }], objectiveText);
  }

  /** A scenario session: every change is validated once here; `evaluateSteps` applies a scenario's. */
  static openScenarios(copyPath: string, changeTexts: readonly LabelledChange[], objectiveText: string): SandboxSession {
    const database = openSqliteFile(copyPath, { fileMustExist: true });
    try {
      const changes = changeTexts.map((change) => {
        const statement = prepareOne(database, change.text, change.label);
        if (statement.readonly) {
          throw new WorkbenchError('invalid-request', `${change.label === 'change' ? 'the change' : change.label} must be a statement that modifies data (UPDATE, INSERT, DELETE, …); queries, ATTACH and transaction control are refused`);
        }
        return { label: change.label, statement };
      });
      const objective = prepareOne(database, objectiveText, 'objective');
      if (!objective.reader || !objective.readonly) throw new WorkbenchError('invalid-request', 'the objective must be a read-only query (SELECT) that returns one number');
      objective.raw(true);
      return new SandboxSession(database, changes, objective);
    } catch (error) {
      database.close();
      throw error;
    }
  }

  private measure(candidate: Candidate, when: 'before' | 'after'): number {
    let rows: unknown[][];
    try {
      rows = this.objective.all({ candidate: bindable(candidate) }) as unknown[][];
    } catch (error) {
      throw new WorkbenchError('query-failed', `objective ${when} candidate ${String(candidate)}: SQLite: ${messageOf(error)}`);
    }
    const value = rows.length === 1 && rows[0]?.length === 1 ? rows[0][0] : undefined;
    if (rows.length !== 1 || (rows[0]?.length ?? 0) !== 1) {
      throw new WorkbenchError('invalid-request', `the objective must return exactly one number (one row, one column); ${when} candidate ${String(candidate)} it returned ${rows.length} row(s) of ${rows[0]?.length ?? 0} column(s)`);
    }
    const number = typeof value === 'bigint' ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isFinite(number)) {
      throw new WorkbenchError('invalid-request', `the objective must return a finite number; ${when} candidate ${String(candidate)} it returned ${value === null ? 'NULL' : JSON.stringify(value)}`);
    }
    return number;
  }

  /** One experiment; the transaction is rolled back whatever happens, so the copy is pristine again. */
  evaluate(candidate: Candidate): CandidateMeasure {
    return this.evaluateSteps([0], candidate);
  }

  /** The changes numbered `steps`, in that order, in one transaction that is always rolled back. */
  evaluateSteps(steps: readonly number[], candidate: Candidate): CandidateMeasure {
    this.database.exec('BEGIN');
    try {
      const before = this.measure(candidate, 'before');
      let changedRows = 0;
      for (const step of steps) {
        const change = this.changes[step];
        if (!change) throw new WorkbenchError('internal', `no change number ${step} in this sandbox session`);
        try {
          changedRows += change.statement.run({ candidate: bindable(candidate) }).changes;
        } catch (error) {
          throw new WorkbenchError('query-failed', `${change.label} for candidate ${String(candidate)}: SQLite: ${messageOf(error)}`);
        }
      }
      const after = this.measure(candidate, 'after');
      return { before, after, changedRows };
    } finally {
      if (this.database.inTransaction) this.database.exec('ROLLBACK');
    }
  }

  close(): void {
    this.database.close();
  }
}
