/**
 * The produced-by record (contract/produced-by.ts) read from a run's events: the one written
 * into `run-end` when there is one, else derived from the events themselves, so a log from
 * before the record existed (fixtures/runs/) still says what produced it as far as it can.
 * The engine's recorder (engine/produced-by-recorder.ts) uses the same derivation to write it.
 */
import type { DecisionOrigin, ProducedBy } from '../contract/produced-by';
import type { RunEvent } from '../contract/run';

type StartEvent = Extract<RunEvent, { type: 'run-start' }>;
type DecisionEvent = Extract<RunEvent, { type: 'decision' }>;

/** What the events cannot say: labels of technique ids, and facts the recorder knows from outside the log. */
export interface ProducedByContext {
  labelOf(technique: string): string;
  productVersion?: string | null;
  modelFile?: ProducedBy['model']['file'];
  variant?: string | null;
}

/** run-start fields the record names on its own; every other field is carried as a setting. */
const namedStartFields = new Set(['type', 'technique', 'question', 'rules', 'connection', 'model', 'limits', 'extensions', 'seed', 'variant']);
const namedModelFields = new Set(['description', 'toolMode', 'endpoint', 'name', 'temperature', 'maxTokens']);
const namedLimitFields = new Set(['maxSteps', 'maxTokens', 'maxDurationMs']);

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** A hand-over to another technique, as a technique logs it: a `<technique>-fallback` tool event naming the technique that answers instead. */
function fallbackOf(event: RunEvent, started: string): { from: string; to: string; reason: string; step: number } | null {
  if (event.type !== 'tool' || !event.tool.endsWith('-fallback')) return null;
  const input = record(event.input);
  if (typeof input['fallback'] !== 'string') return null;
  const reason = typeof input['reason'] === 'string' ? input['reason'] : typeof input['attempts'] === 'number' ? `after ${input['attempts']} failed attempts` : 'after its own attempt failed';
  return { from: started, to: input['fallback'], reason, step: event.step };
}

function sameCandidate(a: string | number, b: string): boolean {
  return String(a).trim().toLowerCase() === b.trim().toLowerCase();
}

/**
 * The latest `simulate` or `whatif` result the model saw before deciding whose best candidate
 * is the decision. Only calls of an earlier step count (the model cannot have read a result of
 * its own deciding turn), and never the workbench's own check of the decision.
 */
function rankingCopied(earlier: readonly RunEvent[], decision: DecisionEvent): DecisionOrigin['toolAssisted'] {
  if (decision.computedBy !== undefined) return null;
  let found: DecisionOrigin['toolAssisted'] = null;
  for (const event of earlier) {
    if ((event.type !== 'simulation' && event.type !== 'whatif') || event.step >= decision.step) continue;
    if (event.type === 'simulation' && event.check !== true && sameCandidate(event.result.best, decision.decision)) found = { tool: 'simulate', step: event.step };
    if (event.type === 'whatif' && event.result !== null && sameCandidate(event.result.best, decision.decision)) found = { tool: 'whatif', step: event.step };
  }
  return found;
}

/** Who made `decision`, from the events before it: the technique (the fallback that answered, if one did) and a copied ranking. */
export function decisionOriginOf(earlier: readonly RunEvent[], decision: DecisionEvent, labelOf: (technique: string) => string): DecisionOrigin {
  const start = earlier.find((event): event is StartEvent => event.type === 'run-start');
  const started = start?.technique ?? 'unknown';
  const fallback = earlier.map((event) => fallbackOf(event, started)).filter((found) => found !== null).at(-1) ?? null;
  const technique = fallback?.to ?? started;
  return {
    technique,
    label: labelOf(technique),
    fallback: fallback ? { of: fallback.from, ofLabel: labelOf(fallback.from), reason: fallback.reason } : null,
    toolAssisted: rankingCopied(earlier, decision),
  };
}

/** The record derived from a run's events (all of them, or all so far). */
export function deriveProducedBy(events: readonly RunEvent[], context: ProducedByContext): ProducedBy {
  const start = events.find((event): event is StartEvent => event.type === 'run-start');
  const startFields = record(start);
  const model = record(start?.model);
  const limits = record(start?.limits);
  const technique = start?.technique ?? 'unknown';
  const decisionIndex = events.findLastIndex((event) => event.type === 'decision');
  const decision = decisionIndex < 0 ? null : (events[decisionIndex] as DecisionEvent);

  const served: string[] = [];
  const structuredOutput: ProducedBy['structuredOutput'] = [];
  const toolsOffered: string[] = [];
  let seed: ProducedBy['seed'] = typeof startFields['seed'] === 'number' || typeof startFields['seed'] === 'string' ? startFields['seed'] : null;
  for (const event of events) {
    if (event.type === 'model-response') {
      if (event.model && !served.includes(event.model)) served.push(event.model);
      structuredOutput.push({ step: event.step, ...(event.node ? { node: event.node } : {}), constrained: event.constrained ?? 'unknown' });
    }
    if (event.type === 'model-request') for (const tool of event.tools) if (!toolsOffered.includes(tool)) toolsOffered.push(tool);
    // A sampling technique records its seed with its first draw (DeLLMa's `dellma.sampling`).
    if (seed === null && event.type === 'tool') {
      const input = record(event.input)['seed'];
      if (typeof input === 'number') seed = input;
    }
  }

  const settings: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(startFields)) {
    if (namedStartFields.has(key) || value === undefined) continue;
    // A playbook's text is long and already in the log: the record names its version and hash.
    settings[key] = key === 'playbook' ? { version: record(value)['version'] ?? null, sha256: record(value)['sha256'] ?? null } : value;
  }
  for (const [key, value] of Object.entries(model)) if (!namedModelFields.has(key) && value !== undefined) settings[`model.${key}`] = value;
  for (const [key, value] of Object.entries(limits)) if (!namedLimitFields.has(key) && value !== undefined) settings[`limits.${key}`] = value;
  // Each extension on or off: as the resolved fidelity lists them (every extension of the
  // technique, shared and its own), or a top-level record written by other producers.
  const extensions: Record<string, boolean> = {};
  for (const [key, value] of Object.entries(record(startFields['extensions']))) if (typeof value === 'boolean') extensions[key] = value;
  const resolved = record(startFields['fidelity'])['extensions'];
  for (const entry of Array.isArray(resolved) ? resolved : []) {
    const { id, on } = record(entry);
    if (typeof id === 'string' && typeof on === 'boolean') extensions[id] = on;
  }

  const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
  const num = (value: unknown): number | null => (typeof value === 'number' ? value : null);
  return {
    format: 'decision-workbench/produced-by',
    version: 1,
    technique,
    techniqueLabel: context.labelOf(technique),
    variant: context.variant ?? str(startFields['variant']),
    decidedBy: decision ? (decision.origin ?? decisionOriginOf(events.slice(0, decisionIndex), decision, context.labelOf)) : null,
    model: {
      configured: str(model['name']),
      served,
      endpoint: str(model['endpoint']),
      file: context.modelFile ?? null,
      description: str(model['description']) ?? '',
    },
    temperature: num(model['temperature']),
    maxTokensPerCall: num(model['maxTokens']),
    maxTokensPerRun: num(limits['maxTokens']),
    maxSteps: num(limits['maxSteps']) ?? 0,
    maxDurationMs: num(limits['maxDurationMs']) ?? 0,
    toolMode: model['toolMode'] === 'text' ? 'text' : 'tools',
    structuredOutput,
    toolsOffered,
    seed,
    extensions,
    settings,
    fallbacks: events.map((event) => fallbackOf(event, technique)).filter((found) => found !== null),
    productVersion: context.productVersion ?? null,
  };
}

/** The record a run's events carry: the one its `run-end` recorded, else derived from them; null for a log with no run-start. */
export function producedByOf(events: readonly RunEvent[], labelOf: (technique: string) => string): ProducedBy | null {
  const end = events.findLast((event) => event.type === 'run-end');
  if (end?.type === 'run-end' && end.producedBy) return end.producedBy;
  if (!events.some((event) => event.type === 'run-start')) return null;
  return deriveProducedBy(events, { labelOf });
}
