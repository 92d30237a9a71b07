/**
 * What the benchmark needs to know about one finished run, read from its run log
 * (run-log.jsonl): how it ended, what it cost, which queries failed and what the model saw.
 * Lines that are not run events are counted, never fatal: a log cut short by a kill still
 * tells what happened before.
 */
import { readFileSync } from 'node:fs';
import { runEventSchema, type RunEvent, type RunStatus } from '../contract/run';

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
  queries: QueryFact[];
  /** Everything the model was shown as the result of an action, in order. */
  observations: string[];
  unreadableLines: number;
}

export function runFactsFromEvents(events: readonly RunEvent[], unreadableLines = 0): RunFacts {
  const facts: RunFacts = { status: null, message: null, decision: null, steps: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, replans: 0, queries: [], observations: [], unreadableLines };
  const queries = new Map<string, QueryFact>();
  for (const event of events) {
    switch (event.type) {
      case 'model-response':
        facts.steps += 1;
        facts.promptTokens += event.usage?.promptTokens ?? 0;
        facts.completionTokens += event.usage?.completionTokens ?? 0;
        facts.totalTokens += event.usage?.totalTokens ?? 0;
        break;
      case 'replan':
        facts.replans += 1;
        break;
      case 'query-start': {
        const fact: QueryFact = { queryId: event.queryId, query: event.query, step: event.step, ok: null, error: null, rowCount: null };
        queries.set(event.queryId, fact);
        facts.queries.push(fact);
        break;
      }
      case 'query-end': {
        const fact = queries.get(event.queryId);
        if (fact) {
          fact.ok = event.error === null;
          fact.error = event.error?.message ?? null;
          fact.rowCount = event.result?.rowCount ?? null;
        }
        break;
      }
      case 'observation':
        facts.observations.push(event.text);
        break;
      case 'decision':
        facts.decision = event.decision;
        break;
      case 'run-end':
        if (event.status !== 'running') facts.status = event.status;
        facts.message = event.message;
        break;
      default:
        break;
    }
  }
  return facts;
}

export function readRunFacts(logPath: string): RunFacts {
  const events: RunEvent[] = [];
  let unreadable = 0;
  for (const line of readFileSync(logPath, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const parsed = runEventSchema.safeParse((JSON.parse(line) as { event?: unknown }).event);
      if (parsed.success) events.push(parsed.data);
      else unreadable += 1;
    } catch {
      unreadable += 1;
    }
  }
  return runFactsFromEvents(events, unreadable);
}
