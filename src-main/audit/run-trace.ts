import type { QueryResult } from '../contract/data';
import { WorkbenchError } from '../contract/errors';
import { planNodesOf, runEventSchema, type PlanNode, type RunEvent } from '../contract/run';
import { diffSteps, type DiffLine } from './plan-diff';

/**
 * The one reader of run logs: reports, resume, the CLI and the technique benchmark all walk a
 * run's events through `TraceReader`, so an old log (plans as `string[]`, numeric steps) and a
 * new one are understood the same way everywhere. Events this version does not know are kept
 * as `other` items rather than dropped.
 */
type EventOf<T extends RunEvent['type']> = Extract<RunEvent, { type: T }>;
export type SimulationResultValue = EventOf<'simulation'>['result'];
export type VerificationValue = NonNullable<EventOf<'decision'>['verification']>;
type JsonObject = Record<string, unknown>;
type RunStart = EventOf<'run-start'>;

export interface ModelCall {
  step: number;
  requestedAt: string | null;
  answeredAt: string;
  toolsOffered: string[];
  toolCalls: string[];
  latencyMs: number;
  usage: { promptTokens: number; completionTokens: number; totalTokens: number } | null;
}

export interface PlanVersion {
  /** 0 for the first plan, then 1, 2, … for each re-plan. */
  version: number;
  step: number;
  at: string;
  author: 'model' | 'analyst';
  steps: string[];
  /** The steps with ids and dependencies; a plan logged before ids existed reads as a chain s1 → s2 → …. */
  nodes: PlanNode[];
  reason: string | null;
  /** Against the plan before; null for the first plan. */
  diff: DiffLine[] | null;
}

export interface QueryRecord {
  id: string;
  step: number;
  /** The plan node the query worked on, when the technique said. */
  node: string | null;
  author: 'model' | 'analyst';
  text: string;
  params: Record<string, unknown> | null;
  startedAt: string;
  endedAt: string | null;
  result: QueryResult | null;
  error: { code: string; message: string } | null;
  digest: string | null;
  observation: string | null;
  /** The decision cites this query as evidence. */
  evidence: boolean;
}

export interface ReviewRecord {
  step: number;
  at: string;
  action: 'approve' | 'edit' | 'skip' | 'note' | 'stop';
  subject: 'query' | 'replan' | 'forecast' | 'ranking' | 'plan';
  original: string;
  edited: string | null;
  note: string | null;
}

/** A what-if experiment the model ran on a throwaway copy of the data (failed ones keep their error). */
export interface WhatIfRecord {
  step: number;
  at: string;
  spec: EventOf<'whatif'>['spec'];
  result: EventOf<'whatif'>['result'];
  error: { code: string; message: string } | null;
}

export interface SimulationRecord {
  step: number;
  at: string;
  requested: string[] | null;
  result: SimulationResultValue;
}

export type TraceItem =
  | { kind: 'thought'; text: string }
  | { kind: 'plan'; plan: PlanVersion }
  | { kind: 'query'; query: QueryRecord }
  | { kind: 'observation'; text: string }
  | { kind: 'review'; review: ReviewRecord }
  | { kind: 'repair'; problem: string }
  | { kind: 'simulation'; simulation: SimulationRecord }
  | { kind: 'whatif'; whatif: WhatIfRecord }
  | { kind: 'decision' }
  | { kind: 'other'; type: string; at: string; fields: JsonObject };

export interface StepRecord {
  /** 0 holds what happened before the first model call. */
  step: number;
  call: ModelCall | null;
  items: TraceItem[];
}

export interface DecisionRecord {
  step: number;
  at: string;
  decision: string;
  rationale: string;
  evidence: string[];
  verification: VerificationValue | null;
  /** Why no simulator checked it (absent when checked, and in logs from before reasons were recorded). */
  unchecked?: string;
  /** Set when the decision was computed in code, not written by the model. */
  computedBy?: string;
}

/** What a run spent and did, summed over its events. */
export interface RunTotals {
  modelCalls: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  latencyMs: number;
  queries: number;
  failedQueries: number;
  replans: number;
  repairs: number;
}

/** Walks the events in order, filing each under its model step. */
export class TraceReader {
  start: { event: RunStart; at: string } | null = null;
  ended: EventOf<'run-end'> | null = null;
  decision: DecisionRecord | null = null;
  readonly plans: PlanVersion[] = [];
  readonly reviews: ReviewRecord[] = [];
  readonly simulations: SimulationRecord[] = [];
  unknown = 0;
  private readonly steps = new Map<number, StepRecord>();
  private readonly queries = new Map<string, QueryRecord>();
  private readonly requests = new Map<number, { at: string; tools: string[] }>();
  /** Queries the analyst skipped in step-through mode (an observation with no query behind it). */
  skippedQueries = 0;
  /**
   * Tokens of every model response in the log, including a call answered before an app stop
   * and made again after the resume (the step's record keeps only the latest answer).
   */
  readonly spent = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  private repairs = 0;

  /** Reads a whole log (the entries of run-log.jsonl, or the events of a bundle). */
  static of(entries: Iterable<{ event: JsonObject | RunEvent; at: string }>): TraceReader {
    const reader = new TraceReader();
    for (const entry of entries) reader.read(entry.event as JsonObject & { type: string }, entry.at);
    return reader;
  }

  read(raw: JsonObject & { type: string }, at: string): void {
    const parsed = runEventSchema.safeParse(raw);
    if (!parsed.success) {
      this.unknown++;
      const { type, ...fields } = raw;
      this.stepOf(typeof raw['step'] === 'number' ? raw['step'] : 0).items.push({ kind: 'other', type, at, fields });
      return;
    }
    const event = parsed.data;
    switch (event.type) {
      case 'run-start':
        this.start = { event, at };
        return;
      case 'model-request':
        this.requests.set(event.step, { at, tools: event.tools });
        return;
      case 'model-response': {
        this.spent.promptTokens += event.usage?.promptTokens ?? 0;
        this.spent.completionTokens += event.usage?.completionTokens ?? 0;
        this.spent.totalTokens += event.usage?.totalTokens ?? 0;
        const request = this.requests.get(event.step);
        this.stepOf(event.step).call = {
          step: event.step,
          requestedAt: request?.at ?? null,
          answeredAt: at,
          toolsOffered: request?.tools ?? [],
          toolCalls: event.toolCalls.map((call) => call.name),
          latencyMs: event.latencyMs,
          usage: event.usage,
        };
        return;
      }
      case 'thought':
        this.stepOf(event.step).items.push({ kind: 'thought', text: event.text });
        return;
      case 'plan':
      case 'replan': {
        const previous = this.plans.at(-1);
        const plan: PlanVersion = {
          version: this.plans.length,
          step: event.step,
          at,
          author: event.type === 'replan' ? event.author : 'model',
          steps: event.steps,
          nodes: planNodesOf(event),
          reason: event.type === 'replan' ? event.reason : null,
          diff: event.type === 'replan' || previous ? diffSteps(event.type === 'replan' ? event.previous : (previous?.steps ?? []), event.steps) : null,
        };
        this.plans.push(plan);
        this.stepOf(event.step).items.push({ kind: 'plan', plan });
        return;
      }
      case 'query-start': {
        const query: QueryRecord = {
          id: event.queryId,
          step: event.step,
          node: event.node ?? null,
          author: event.author,
          text: event.query,
          params: event.params ?? null,
          startedAt: at,
          endedAt: null,
          result: null,
          error: null,
          digest: null,
          observation: null,
          evidence: false,
        };
        this.queries.set(event.queryId, query);
        this.stepOf(event.step).items.push({ kind: 'query', query });
        return;
      }
      case 'query-end': {
        const query = this.queries.get(event.queryId);
        if (!query) return;
        query.endedAt = at;
        query.result = event.result;
        query.error = event.error ? { code: event.error.code, message: event.error.message } : null;
        query.digest = event.digest;
        return;
      }
      case 'observation': {
        const query = event.queryId ? this.queries.get(event.queryId) : undefined;
        if (event.queryId === null) this.skippedQueries++;
        if (query) query.observation = event.text;
        else this.stepOf(event.step).items.push({ kind: 'observation', text: event.text });
        return;
      }
      case 'analyst-review': {
        const review: ReviewRecord = { step: event.step, at, action: event.action, subject: event.subject, original: event.original, edited: event.edited, note: event.note };
        this.reviews.push(review);
        this.stepOf(event.step).items.push({ kind: 'review', review });
        return;
      }
      case 'model-repair':
        this.repairs++;
        this.stepOf(event.step).items.push({ kind: 'repair', problem: event.problem });
        return;
      case 'simulation': {
        const simulation: SimulationRecord = { step: event.step, at, requested: event.requested, result: event.result };
        this.simulations.push(simulation);
        this.stepOf(event.step).items.push({ kind: 'simulation', simulation });
        return;
      }
      case 'whatif': {
        const error = event.error ? { code: event.error.code, message: event.error.message } : null;
        this.stepOf(event.step).items.push({ kind: 'whatif', whatif: { step: event.step, at, spec: event.spec, result: event.result, error } });
        return;
      }
      case 'decision':
        this.decision = { step: event.step, at, decision: event.decision, rationale: event.rationale, evidence: event.evidence, verification: event.verification ?? null, ...(event.unchecked ? { unchecked: event.unchecked } : {}), ...(event.computedBy ? { computedBy: event.computedBy } : {}) };
        for (const id of event.evidence) {
          const query = this.queries.get(id);
          if (query) query.evidence = true;
        }
        this.stepOf(event.step).items.push({ kind: 'decision' });
        return;
      case 'tool': {
        // A tool with no event of its own: shown as it is, like an event of a newer version.
        const { type, ...fields } = event;
        this.stepOf(event.step).items.push({ kind: 'other', type, at, fields: fields as JsonObject });
        return;
      }
      case 'run-end':
        this.ended = event;
        return;
    }
  }

  stepList(): StepRecord[] {
    return [...this.steps.values()].sort((a, b) => a.step - b.step);
  }

  queryList(): QueryRecord[] {
    return [...this.queries.values()];
  }

  totals(): RunTotals {
    const calls = this.stepList().flatMap((step) => (step.call ? [step.call] : []));
    const sum = (pick: (call: ModelCall) => number): number => calls.reduce((total, call) => total + pick(call), 0);
    const queries = this.queryList();
    return {
      modelCalls: calls.length,
      promptTokens: sum((call) => call.usage?.promptTokens ?? 0),
      completionTokens: sum((call) => call.usage?.completionTokens ?? 0),
      totalTokens: sum((call) => call.usage?.totalTokens ?? 0),
      latencyMs: sum((call) => call.latencyMs),
      queries: queries.length,
      failedQueries: queries.filter((query) => query.error !== null).length,
      replans: this.plans.filter((plan) => plan.reason !== null).length,
      repairs: this.repairs,
    };
  }

  private stepOf(step: number): StepRecord {
    let record = this.steps.get(step);
    if (!record) {
      record = { step, call: null, items: [] };
      this.steps.set(step, record);
    }
    return record;
  }
}


/**
 * The entries of a run-log.jsonl file (as `dwb run --out` and the benchmark write it), for
 * `TraceReader.of`. A line that is not JSON is named by its number; an empty file is an empty log.
 */
export function parseRunLogLines(text: string, name = 'run-log.jsonl'): { event: JsonObject & { type: string }; at: string }[] {
  return text.split(/\r?\n/).flatMap((line, index) => {
    if (line.trim() === '') return [];
    let entry: unknown;
    try {
      entry = JSON.parse(line) as unknown;
    } catch (error) {
      throw new WorkbenchError('invalid-request', `${name} line ${index + 1} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
    const record = entry as { event?: { type?: unknown }; at?: unknown } | null;
    if (typeof record?.event?.type !== 'string' || typeof record.at !== 'string') {
      throw new WorkbenchError('invalid-request', `${name} line ${index + 1} is not a run-log entry (no event type or time)`);
    }
    return [{ event: record.event as JsonObject & { type: string }, at: record.at }];
  });
}
