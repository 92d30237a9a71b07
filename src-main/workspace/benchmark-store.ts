import { WorkbenchError } from '../contract/errors';
import { benchmarkProgressSchema, benchmarkStatusSchema, readStoredBenchmarkSpec, type BenchmarkSummary } from '../contract/benchmarks';
import type { AppDatabase } from './app-database';

interface BenchmarkRow {
  id: string;
  spec: string;
  model: string;
  status: string;
  progress: string;
  message: string | null;
  created_at: string;
  ended_at: string | null;
}

/** Technique benchmarks of the workspace: what was asked, on which model, and how far it got. */
export class BenchmarkStore {
  constructor(
    private readonly database: AppDatabase,
    /** Where a benchmark's question runs are written. */
    private readonly directoryOf: (id: string) => string,
  ) {}

  create(summary: Omit<BenchmarkSummary, 'directory'>): void {
    this.database
      .prepare('INSERT INTO benchmarks (id, spec, model, status, progress, message, created_at, ended_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(summary.id, JSON.stringify(summary.spec), summary.model, summary.status, JSON.stringify(summary.progress), summary.message, summary.createdAt, summary.endedAt);
  }

  update(id: string, change: Partial<Pick<BenchmarkSummary, 'status' | 'progress' | 'message' | 'endedAt' | 'model'>>): BenchmarkSummary {
    const current = this.get(id);
    const next = { ...current, ...change };
    this.database
      .prepare('UPDATE benchmarks SET status = ?, progress = ?, message = ?, ended_at = ?, model = ? WHERE id = ?')
      .run(next.status, JSON.stringify(next.progress), next.message, next.endedAt, next.model, id);
    return next;
  }

  get(id: string): BenchmarkSummary {
    const row = this.database.prepare('SELECT * FROM benchmarks WHERE id = ?').get(id) as BenchmarkRow | undefined;
    if (!row) throw new WorkbenchError('not-found', `No benchmark ${id}`);
    return this.summary(row);
  }

  list(): BenchmarkSummary[] {
    return (this.database.prepare('SELECT * FROM benchmarks ORDER BY created_at DESC, id DESC').all() as BenchmarkRow[]).map((row) => this.summary(row));
  }

  /** Benchmarks that were running when the app stopped: they can be resumed. */
  markInterrupted(now: string): void {
    this.database.prepare(`UPDATE benchmarks SET status = 'interrupted', message = 'The app stopped during the benchmark; resume to finish it', ended_at = ? WHERE status = 'running'`).run(now);
  }

  private summary(row: BenchmarkRow): BenchmarkSummary {
    return {
      id: row.id,
      spec: readStoredBenchmarkSpec(JSON.parse(row.spec)),
      model: row.model,
      status: benchmarkStatusSchema.parse(row.status),
      progress: benchmarkProgressSchema.parse(JSON.parse(row.progress)),
      message: row.message,
      directory: this.directoryOf(row.id),
      createdAt: row.created_at,
      endedAt: row.ended_at,
    };
  }
}
