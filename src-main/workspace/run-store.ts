import type { z } from 'zod';
import type { LoggedEvent } from '../audit/hash-chain';
import { WorkbenchError } from '../contract/errors';
import { decisionOriginSchema, type DecisionOrigin } from '../contract/produced-by';
import { decisionCheckSchema, type DecisionCheck, type RunStatus, type RunSummary } from '../contract/run';
import type { AppDatabase } from './app-database';

interface RunRow {
  id: string;
  notebook_id: string;
  technique: RunSummary['technique'];
  mode: RunSummary['mode'];
  status: RunStatus;
  question: string;
  decision: string | null;
  message: string | null;
  created_at: string;
  ended_at: string | null;
  /** JSON of the decision's origin; null for a run without a decision or stored before it was kept. */
  decided_by: string | null;
  /** JSON of how the decision was checked; null for a run without a decision or stored before it was kept. */
  decision_check: string | null;
}

/** Runs and their hash-chained event logs and model transcripts, in the workspace database. */
export class RunStore {
  constructor(private readonly database: AppDatabase) {}

  create(run: { id: string; notebookId: string; connectionId: string; technique: RunSummary['technique']; mode: RunSummary['mode']; question: string; createdAt: string; request: unknown }): void {
    this.database
      .prepare(`INSERT INTO runs (id, notebook_id, connection_id, technique, mode, status, question, created_at, request) VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?)`)
      .run(run.id, run.notebookId, run.connectionId, run.technique, run.mode, run.question, run.createdAt, JSON.stringify(run.request));
  }

  /** What a run was started with (null for runs stored before requests were kept). */
  request(runId: string): unknown {
    const row = this.database.prepare('SELECT request FROM runs WHERE id = ?').get(runId) as { request: string | null } | undefined;
    if (!row) throw new WorkbenchError('not-found', `There is no run ${runId}`);
    return row.request === null ? null : (JSON.parse(row.request) as unknown);
  }

  /** What an interrupted run was started with; null when it cannot be resumed. */
  interruptedRequest(runId: string): unknown {
    const row = this.database.prepare(`SELECT request FROM runs WHERE id = ? AND status = 'interrupted'`).get(runId) as { request: string | null } | undefined;
    if (!row) throw new WorkbenchError('conflict', `Run ${runId} was not interrupted, so there is nothing to resume`);
    return row.request === null ? null : (JSON.parse(row.request) as unknown);
  }

  /** The distinct questions asked of a connection, oldest first, with the rules each run was given (Pearl mines actions from them). */
  pastQuestions(connectionId: string): { id: string; question: string; rules: string }[] {
    const rows = this.database.prepare('SELECT id, question, request FROM runs WHERE connection_id = ? ORDER BY created_at').all(connectionId) as { id: string; question: string; request: string | null }[];
    const seen = new Set<string>();
    return rows.flatMap((row) => {
      const question = row.question.trim();
      if (!question || seen.has(question)) return [];
      seen.add(question);
      const request = row.request ? (JSON.parse(row.request) as { rules?: unknown }) : {};
      return [{ id: row.id, question, rules: typeof request.rules === 'string' ? request.rules : '' }];
    });
  }

  /** Overwrites the run's checkpoint (see engine/resume-state.ts); one per run, the latest. */
  saveCheckpoint(runId: string, checkpoint: unknown): void {
    this.database.prepare('UPDATE runs SET checkpoint = ? WHERE id = ?').run(JSON.stringify(checkpoint), runId);
  }

  checkpoint(runId: string): unknown {
    const row = this.database.prepare('SELECT checkpoint FROM runs WHERE id = ?').get(runId) as { checkpoint: string | null } | undefined;
    return row?.checkpoint ? (JSON.parse(row.checkpoint) as unknown) : null;
  }

  markResumed(runId: string): void {
    this.database.prepare(`UPDATE runs SET status = 'running', message = NULL, ended_at = NULL WHERE id = ?`).run(runId);
  }

  transcriptLineCount(runId: string): number {
    return this.database.prepare('SELECT count(*) FROM run_transcripts WHERE run_id = ?').pluck().get(runId) as number;
  }

  appendEvent(entry: LoggedEvent): void {
    this.database
      .prepare('INSERT INTO run_events (run_id, seq, at, event, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?)')
      .run(entry.runId, entry.seq, entry.at, JSON.stringify(entry.event), entry.prevHash, entry.hash);
  }

  appendTranscriptLine(runId: string, seq: number, line: string): void {
    this.database.prepare('INSERT INTO run_transcripts (run_id, seq, line) VALUES (?, ?, ?)').run(runId, seq, line);
  }

  finish(runId: string, outcome: { status: RunStatus; decision: string | null; decidedBy?: DecisionOrigin | null; check?: DecisionCheck | null; message: string | null; endedAt: string }): void {
    const json = (value: unknown): string | null => (value ? JSON.stringify(value) : null);
    this.database
      .prepare('UPDATE runs SET status = ?, decision = ?, decided_by = ?, decision_check = ?, message = ?, ended_at = ? WHERE id = ?')
      .run(outcome.status, outcome.decision, json(outcome.decidedBy), json(outcome.check), outcome.message, outcome.endedAt, runId);
  }

  /** Runs left `running` by an app that stopped mid-run: they can be resumed from the notebook. */
  markInterrupted(now: string): void {
    this.database
      .prepare(`UPDATE runs SET status = 'interrupted', message = 'The app stopped during this run; resume it to carry on', ended_at = ? WHERE status = 'running'`)
      .run(now);
  }

  /** The connection a run ran on, or null for an unknown run. */
  connectionOf(runId: string): string | null {
    const row = this.database.prepare('SELECT connection_id FROM runs WHERE id = ?').get(runId) as { connection_id: string } | undefined;
    return row?.connection_id ?? null;
  }

  list(notebookId: string): RunSummary[] {
    return (this.database.prepare('SELECT * FROM runs WHERE notebook_id = ? ORDER BY created_at DESC').all(notebookId) as RunRow[]).map(toSummary);
  }

  /** The runs of every notebook not in the trash, newest first, with their notebook's title. */
  listAll(limit: number): { runs: (RunSummary & { notebookTitle: string })[]; more: boolean } {
    const rows = this.database
      .prepare('SELECT r.*, n.title AS notebook_title FROM runs r JOIN notebooks n ON n.id = r.notebook_id WHERE n.deleted_at IS NULL ORDER BY r.created_at DESC, r.rowid DESC LIMIT ?')
      .all(limit + 1) as (RunRow & { notebook_title: string })[];
    return { runs: rows.slice(0, limit).map((row) => ({ ...toSummary(row), notebookTitle: row.notebook_title })), more: rows.length > limit };
  }

  events(runId: string): LoggedEvent[] {
    const rows = this.database.prepare('SELECT * FROM run_events WHERE run_id = ? ORDER BY seq').all(runId) as {
      run_id: string;
      seq: number;
      at: string;
      event: string;
      prev_hash: string;
      hash: string;
    }[];
    if (rows.length === 0 && !this.database.prepare('SELECT 1 FROM runs WHERE id = ?').get(runId)) throw new WorkbenchError('not-found', `No run ${runId}`);
    return rows.map((row) => ({ runId: row.run_id, seq: row.seq, at: row.at, event: JSON.parse(row.event) as LoggedEvent['event'], prevHash: row.prev_hash, hash: row.hash }));
  }

  transcript(runId: string): string {
    return (this.database.prepare('SELECT line FROM run_transcripts WHERE run_id = ? ORDER BY seq').pluck().all(runId) as string[]).join('');
  }
}

function toSummary(row: RunRow): RunSummary {
  return {
    id: row.id,
    notebookId: row.notebook_id,
    technique: row.technique,
    mode: row.mode,
    status: row.status,
    question: row.question,
    decision: row.decision,
    decidedBy: storedOf(row.decided_by, decisionOriginSchema),
    check: storedOf(row.decision_check, decisionCheckSchema),
    message: row.message,
    createdAt: row.created_at,
    endedAt: row.ended_at,
  };
}

/** A stored JSON record, or null when there is none or it does not read as one (the histories then say what they can without it). */
function storedOf<T>(stored: string | null, schema: z.ZodType<T>): T | null {
  if (stored === null) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(stored));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
