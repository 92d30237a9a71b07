import type { QueryResult } from '../contract/data';
import { runEventSchema, type RunEvent, type RunStatus } from '../contract/run';
import { techniques } from '../engine/techniques';
import type { JsonObject, ReportBundle, SealRecord } from './bundle-format';
import { diffSteps, type DiffLine } from './plan-diff';

type EventOf<T extends RunEvent['type']> = Extract<RunEvent, { type: T }>;
type RunStart = EventOf<'run-start'>;
export type SimulationResultValue = EventOf<'simulation'>['result'];
export type VerificationValue = NonNullable<EventOf<'decision'>['verification']>;

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
  reason: string | null;
  /** Against the plan before; null for the first plan. */
  diff: DiffLine[] | null;
}

export interface QueryRecord {
  id: string;
  step: number;
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
  subject: 'query' | 'replan';
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
}

export interface SignOffRecord {
  name: string;
  comment: string;
  at: string;
  hash: string;
  /** The fingerprint of the key that signed it; null for a sign-off from before signatures. */
  fingerprint: string | null;
}

export interface IntegritySummary {
  algorithm: 'sha256';
  eventCount: number;
  firstEventHash: string;
  lastEventHash: string;
  head: string;
  sealEntries: number;
  transcriptLines: number;
  notebookCells: number;
  generator: string;
  sealedAt: string;
  /** The analyst whose key signed the seal, or null when it is unsigned. */
  signer: { name: string; fingerprint: string } | null;
}

/** Everything a report shows, read from a verified bundle; each renderer lays it out. */
export interface DecisionReport {
  runId: string;
  title: string;
  question: string;
  rules: string;
  technique: { id: string; label: string; summary: string };
  mode: 'auto' | 'step';
  status: RunStatus;
  statusMessage: string | null;
  startedAt: string;
  endedAt: string | null;
  durationMs: number | null;
  connection: RunStart['connection'];
  model: RunStart['model'] & { servedAs: string[]; settings: JsonObject | null };
  limits: RunStart['limits'];
  totals: {
    modelCalls: number;
    promptTokens: number;
    completionTokens: number;
    totalTokens: number;
    latencyMs: number;
    queries: number;
    failedQueries: number;
    replans: number;
    repairs: number;
  };
  plans: PlanVersion[];
  steps: StepRecord[];
  queries: QueryRecord[];
  decision: DecisionRecord | null;
  reviews: ReviewRecord[];
  simulations: SimulationRecord[];
  /** Notes the analyst wrote into the run's notebook. */
  notes: string[];
  signOffs: SignOffRecord[];
  integrity: IntegritySummary;
  /** Events of types this workbench does not know (from a newer one), shown as they are. */
  unknownEvents: number;
}

/** Reads a verified bundle into the report's model. */
export function buildReport(bundle: ReportBundle): DecisionReport {
  const reader = new TraceReader();
  for (const entry of bundle.events) reader.read(entry.event, entry.at);
  const start = reader.start;
  if (!start) throw new Error('The run log has no run-start event');
  const first = bundle.events[0];
  const last = bundle.events[bundle.events.length - 1];
  const bundleRecord = bundle.seal[0]?.record;
  const header = bundle.transcript.find((line) => line['type'] === 'header');
  const servedAs = new Set<string>();
  for (const line of bundle.transcript) {
    const response = line['response'];
    if (isObject(response) && typeof response['model'] === 'string') servedAs.add(response['model']);
  }
  const startedAt = first?.at ?? '';
  const endedAt = reader.ended ? (last?.at ?? null) : null;
  const technique = techniques[start.event.technique];

  return {
    runId: first?.runId ?? '',
    // The question names the report; a notebook's title may be a generic one ("Welcome…").
    title: firstLine(start.event.question),
    question: start.event.question,
    rules: start.event.rules,
    technique: { id: technique.id, label: technique.label, summary: technique.summary },
    mode: start.event.mode,
    status: reader.ended?.status ?? 'running',
    statusMessage: reader.ended?.message ?? null,
    startedAt,
    endedAt,
    durationMs: endedAt ? Date.parse(endedAt) - Date.parse(startedAt) : null,
    connection: start.event.connection,
    model: { ...start.event.model, servedAs: [...servedAs], settings: isObject(header?.['settings']) ? header['settings'] : null },
    limits: start.event.limits,
    totals: reader.totals(),
    plans: reader.plans,
    steps: reader.stepList(),
    queries: reader.queryList(),
    decision: reader.decision,
    reviews: reader.reviews,
    simulations: reader.simulations,
    notes: analystNotes(bundle.notebook.cells),
    signOffs: bundle.seal.flatMap((entry) => signOff(entry.record, entry.at, entry.hash)),
    integrity: {
      algorithm: 'sha256',
      eventCount: bundle.events.length,
      firstEventHash: first?.hash ?? '',
      lastEventHash: last?.hash ?? '',
      head: bundle.head,
      sealEntries: bundle.seal.length,
      transcriptLines: bundle.transcript.length,
      notebookCells: bundle.notebook.cells.length,
      generator: bundleRecord?.type === 'bundle' ? bundleRecord.generator : '',
      sealedAt: bundle.seal[0]?.at ?? '',
      signer: bundleRecord?.type === 'bundle' ? (bundleRecord.signer ?? null) : null,
    },
    unknownEvents: reader.unknown,
  };
}

/** Walks the events in order, filing each under its model step. */
class TraceReader {
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
  private repairs = 0;

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
        this.decision = { step: event.step, at, decision: event.decision, rationale: event.rationale, evidence: event.evidence, verification: event.verification ?? null };
        for (const id of event.evidence) {
          const query = this.queries.get(id);
          if (query) query.evidence = true;
        }
        this.stepOf(event.step).items.push({ kind: 'decision' });
        return;
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

  totals(): DecisionReport['totals'] {
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

function signOff(record: SealRecord, at: string, hash: string): SignOffRecord[] {
  return record.type === 'sign-off' ? [{ name: record.name, comment: record.comment, at, hash, fingerprint: record.fingerprint ?? null }] : [];
}

function analystNotes(cells: readonly unknown[]): string[] {
  return cells.flatMap((cell) => (isObject(cell) && cell['kind'] === 'note' && cell['author'] === 'analyst' && typeof cell['source'] === 'string' ? [cell['source']] : []));
}

function firstLine(text: string): string {
  return (text.trim().split('\n').find((line) => line.trim() && !/^=+$/.test(line.trim())) ?? 'Decision run').slice(0, 120);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
