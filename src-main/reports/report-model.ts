import { runEventSchema, type RunEvent, type RunStatus } from '../contract/run';
import type { ProducedBy } from '../contract/produced-by';
import { producedByOf } from '../audit/produced-by-trace';
import { techniqueLabelOf } from '../engine/produced-by-recorder';
import { TraceReader, type DecisionRecord, type PlanVersion, type QueryRecord, type ReviewRecord, type RunTotals, type SimulationRecord } from '../audit/run-trace';
import { registeredTechniques } from '../engine/techniques/registry';
import type { JsonObject, ReportBundle, SealRecord } from './bundle-format';
import { planGraphReport, type PlanGraphReport } from './plan-graph-report';
import { redactUrl } from '../llm/settings';
import { chartsOf, type ChartRecord } from './report-charts';
import { projectTechniqueSteps, type ReportStep } from './technique-projections';
import type { ReportSectionBlocks } from '../contract/report-blocks';

export type {
  DecisionRecord,
  ModelCall,
  PlanVersion,
  QueryRecord,
  ReviewRecord,
  SimulationRecord,
  SimulationResultValue,
  StepRecord,
  VerificationValue,
  WhatIfRecord,
} from '../audit/run-trace';
export type { ReportItem, ReportStep } from './technique-projections';

type RunStart = Extract<RunEvent, { type: 'run-start' }>;

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
  /** The playbook an AutoPlan run followed (version hash, text sha256, text); null for none. */
  playbook: NonNullable<RunStart['playbook']> | null;
  /** Documents the analyst attached to the run (name, length, sha256); empty when none (or the technique reads none). */
  documents: NonNullable<RunStart['documents']>;
  mode: 'auto' | 'step';
  status: RunStatus;
  statusMessage: string | null;
  startedAt: string;
  endedAt: string | null;
  durationMs: number | null;
  connection: RunStart['connection'];
  model: RunStart['model'] & { servedAs: string[]; settings: JsonObject | null };
  limits: RunStart['limits'];
  totals: RunTotals;
  plans: PlanVersion[];
  /** The last plan as a graph with each node's state, query and answer (a plan of nodes); null for a list or no plan. */
  planGraph: PlanGraphReport | null;
  /** The trace by model call; a technique's own steps as it projects them (./technique-projections.ts). */
  steps: ReportStep[];
  /** Sections of the run's techniques' own (DeLLMa's exact outcomes [ext]), after the decision's. */
  techniqueSections: ReportSectionBlocks[];
  queries: QueryRecord[];
  decision: DecisionRecord | null;
  reviews: ReviewRecord[];
  simulations: SimulationRecord[];
  /** Notes the analyst wrote into the run's notebook. */
  notes: string[];
  /** Query cells of the notebook shown as charts: the settings in words and the aggregated table. */
  charts: ChartRecord[];
  signOffs: SignOffRecord[];
  integrity: IntegritySummary;
  /** Events of types this workbench does not know (from a newer one), shown as they are. */
  unknownEvents: number;
  /** What produced the result (recorded at the run's end, else derived from its events); null without a run-start. */
  producedBy: ProducedBy | null;
}

/** Reads a verified bundle into the report's model. */
export function buildReport(bundle: ReportBundle): DecisionReport {
  const reader = TraceReader.of(bundle.events);
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
  // The run-end's time: an analyst's re-fit of a DeLLMa run [ext] is logged after it.
  const endedAt = reader.ended ? (bundle.events.find((entry) => entry.event.type === 'run-end')?.at ?? null) : null;
  // A run of a technique this version does not have (a newer one's) still reads, under its id.
  const technique = registeredTechniques().find((candidate) => candidate.id === start.event.technique) ?? { id: start.event.technique, label: start.event.technique, summary: '' };

  const steps = reader.stepList();
  const queries = reader.queryList();
  const projections = projectTechniqueSteps(steps, registeredTechniques());
  return {
    runId: first?.runId ?? '',
    // The question names the report; a notebook's title may be a generic one ("Welcome…").
    title: firstLine(start.event.question),
    question: start.event.question,
    rules: start.event.rules,
    technique: { id: technique.id, label: technique.label, summary: technique.summary },
    playbook: start.event.playbook ?? null,
    documents: start.event.documents ?? [],
    mode: start.event.mode,
    status: reader.ended?.status ?? 'running',
    statusMessage: reader.ended?.message ?? null,
    startedAt,
    endedAt,
    durationMs: endedAt ? Date.parse(endedAt) - Date.parse(startedAt) : null,
    connection: start.event.connection,
    model: shownModel(start.event.model, [...servedAs], isObject(header?.['settings']) ? header['settings'] : null),
    limits: start.event.limits,
    totals: reader.totals(),
    plans: reader.plans,
    planGraph: planGraphReport(reader.plans, steps, queries),
    steps: projections.steps,
    techniqueSections: projections.sections,
    queries,
    decision: reader.decision,
    reviews: reader.reviews,
    simulations: reader.simulations,
    notes: analystNotes(bundle.notebook.cells),
    charts: chartsOf(bundle.notebook.cells),
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
    producedBy: producedByFromBundle(bundle, [...servedAs]),
  };
}

/**
 * The run's produced-by record. A log from before it was recorded has no model names in its
 * responses; the transcript's responses name the model as served, so they fill it in.
 */
function producedByFromBundle(bundle: ReportBundle, servedAs: string[]): ProducedBy | null {
  const events = bundle.events.flatMap((entry) => {
    const parsed = runEventSchema.safeParse(entry.event);
    return parsed.success ? [parsed.data] : [];
  });
  const found = producedByOf(events, techniqueLabelOf);
  if (!found) return null;
  // An older run may have recorded a key in its endpoint's query or fragment: never shown.
  const model = { ...found.model, endpoint: found.model.endpoint === null ? null : redactUrl(found.model.endpoint), description: found.model.description.replace(/https?:\/\/\S+/g, (url) => redactUrl(url)) };
  return { ...found, model: model.served.length > 0 || servedAs.length === 0 ? model : { ...model, served: servedAs } };
}

function signOff(record: SealRecord, at: string, hash: string): SignOffRecord[] {
  return record.type === 'sign-off' ? [{ name: record.name, comment: record.comment, at, hash, fingerprint: record.fingerprint ?? null }] : [];
}

function analystNotes(cells: readonly unknown[]): string[] {
  // Edits, skips and stops are shown with their query in the review table; their note cells would repeat it.
  const shownAsReview = (cell: JsonObject): boolean => isObject(cell['data']) && ['edit', 'skip', 'stop'].includes(String(cell['data']['review']));
  return cells.flatMap((cell) => (isObject(cell) && cell['kind'] === 'note' && cell['author'] === 'analyst' && typeof cell['source'] === 'string' && !shownAsReview(cell) ? [cell['source']] : []));
}

function firstLine(text: string): string {
  return (text.trim().split('\n').find((line) => line.trim() && !/^=+$/.test(line.trim())) ?? 'Decision run').slice(0, 120);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The model as reports show it. Runs from before base URLs were refused with a query or a
 * fragment may have recorded `…?api_key=…`: the chain keeps what was recorded, but the
 * rendered report shows the endpoint without user info, query or fragment.
 */
function shownModel(model: RunStart['model'], servedAs: string[], settings: JsonObject | null): DecisionReport['model'] {
  const shownSettings = settings && typeof settings['baseUrl'] === 'string' ? { ...settings, baseUrl: redactUrl(settings['baseUrl']) } : settings;
  // The description names the endpoint too ("m at http://…"), as the provider wrote it then.
  const description = model.description.replace(/https?:\/\/\S+/g, (url) => redactUrl(url));
  return { ...model, description, ...(typeof model.endpoint === 'string' ? { endpoint: redactUrl(model.endpoint) } : {}), servedAs, settings: shownSettings };
}
