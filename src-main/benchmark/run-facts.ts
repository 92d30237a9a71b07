/**
 * What the benchmark needs to know about one finished run, read from its run log
 * (run-log.jsonl) through the workbench's one reader of run logs (audit/run-trace.ts): how it
 * ended, what it cost, which queries failed and what the model saw. Lines that are not run
 * events are counted, never fatal: a log cut short by a kill still tells what happened before.
 */
import { dellmaExpectedSchema } from '../contract/dellma';
import { readFileSync } from 'node:fs';
import { parseRunLogLines, TraceReader, type StepRecord } from '../audit/run-trace';
import { runEventSchema, type RunEvent, type RunStatus } from '../contract/run';
import type { ProducedBy } from '../contract/produced-by';
import { producedByOf } from '../audit/produced-by-trace';
import { techniqueLabelOf } from '../engine/produced-by-recorder';

export interface QueryFact {
  queryId: string;
  query: string;
  step: number;
  /** null while the query has no end in the log. */
  ok: boolean | null;
  error: string | null;
  rowCount: number | null;
}

export interface RunFacts {
  status: Exclude<RunStatus, 'running'> | null;
  message: string | null;
  decision: string | null;
  /** Model calls answered. */
  steps: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  replans: number;
  /** The most prompt tokens of any single model call. */
  largestPromptTokens: number;
  /** Plan*RAG's time along the levels (`plan-dag.summary`), null for a technique that does not report it. */
  criticalPathMs: number | null;
  /** DeLLMa's expected utility per option (the last `dellma.expected` record), null for other techniques. */
  utilityEstimates: { action: string; expected: number | null }[] | null;
  /** The playbook version an AutoPlan run followed (its text's sha256 when it came from a plain file); null without one. */
  playbook: string | null;
  queries: QueryFact[];
  /** Everything the model was shown as the result of an action, in order. */
  observations: string[];
  unreadableLines: number;
  /** What produced the run's result (recorded at its end, else derived from its events); null for a log with no start. */
  producedBy: ProducedBy | null;
}

export function runFactsFromTrace(trace: TraceReader, unreadableLines = 0, events: readonly RunEvent[] = []): RunFacts {
  const totals = trace.totals();
  const queries = trace.queryList();
  const status = trace.ended?.status;
  const steps = trace.stepList();
  return {
    status: status === undefined || status === 'running' ? null : status,
    message: trace.ended?.message ?? null,
    decision: trace.decision?.decision ?? null,
    steps: totals.modelCalls,
    // Every answered call is paid for, including one made again after a resume.
    promptTokens: trace.spent.promptTokens,
    completionTokens: trace.spent.completionTokens,
    totalTokens: trace.spent.totalTokens,
    replans: totals.replans,
    largestPromptTokens: Math.max(0, ...steps.map((step) => step.call?.usage?.promptTokens ?? 0)),
    criticalPathMs: criticalPathOf(steps),
    utilityEstimates: utilityEstimatesOf(steps),
    playbook: trace.start?.event.playbook ? (trace.start.event.playbook.version ?? `sha256:${trace.start.event.playbook.sha256}`) : null,
    queries: queries.map((query) => ({
      queryId: query.id,
      query: query.text,
      step: query.step,
      ok: query.endedAt === null ? null : query.error === null,
      error: query.error?.message ?? null,
      rowCount: query.result?.rowCount ?? null,
    })),
    observations: [
      ...queries.flatMap((query) => (query.observation === null ? [] : [query.observation])),
      ...steps.flatMap((step) => step.items.flatMap((item) => (item.kind === 'observation' ? [item.text] : []))),
    ],
    unreadableLines: unreadableLines + trace.unknown,
    producedBy: producedByOf(events, techniqueLabelOf),
  };
}

/** The last `plan-dag.summary` event's `criticalPathMs` (a re-run summary supersedes), else null. */
function criticalPathOf(steps: readonly StepRecord[]): number | null {
  let found: number | null = null;
  for (const step of steps) {
    for (const item of step.items) {
      if (item.kind !== 'other' || item.type !== 'tool' || item.fields['tool'] !== 'plan-dag.summary') continue;
      const input = item.fields['input'];
      const value = typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>)['criticalPathMs'] : undefined;
      if (typeof value === 'number' && Number.isFinite(value)) found = value;
    }
  }
  return found;
}

export function readRunFacts(logPath: string): RunFacts {
  const trace = new TraceReader();
  const events: RunEvent[] = [];
  let unreadable = 0;
  for (const line of readFileSync(logPath, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      for (const entry of parseRunLogLines(line, logPath)) {
        trace.read(entry.event, entry.at);
        const parsed = runEventSchema.safeParse(entry.event);
        if (parsed.success) events.push(parsed.data);
      }
    } catch {
      unreadable += 1;
    }
  }
  return runFactsFromTrace(trace, unreadable, events);
}

/** The rows of the last `dellma.expected` record (option and expected utility), else null. */
function utilityEstimatesOf(steps: readonly StepRecord[]): RunFacts['utilityEstimates'] {
  let found: RunFacts['utilityEstimates'] = null;
  for (const step of steps) {
    for (const item of step.items) {
      if (item.kind !== 'other' || item.type !== 'tool' || item.fields['tool'] !== 'dellma.expected') continue;
      const parsed = dellmaExpectedSchema.safeParse(item.fields['input']);
      if (parsed.success) found = parsed.data.rows.map((row) => ({ action: row.action, expected: row.expected }));
    }
  }
  return found;
}
