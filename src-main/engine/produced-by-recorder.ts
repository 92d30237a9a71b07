/**
 * Writes the produced-by record (contract/produced-by.ts) into the run log as the run goes: each
 * `decision` event gets its `origin` (the technique that made it, a fallback named as such, a
 * ranking it copied) and the `run-end` event the whole record, derived from every event of the
 * run by the same reader reports use (audit/produced-by-trace.ts). Callers wrap the engine's
 * `emit` with it, after the run details (./run-details.ts) are added, so whatever settings
 * run-start records are carried into the record without this module knowing them.
 */
import type { DecisionOrigin, ProducedBy } from '../contract/produced-by';
import type { RunEvent } from '../contract/run';
import { decisionOriginOf, deriveProducedBy } from '../audit/produced-by-trace';
import { techniqueNamed } from './techniques/registry';

/** A technique's label from the registry; an id no longer registered is shown as it is. */
export function techniqueLabelOf(id: string): string {
  // Pearl's paper fallback is no registered technique: one call answering from the question alone.
  if (id === 'zero-shot') return 'a zero-shot answer';
  try {
    return techniqueNamed(id).label;
  } catch {
    return id;
  }
}

export interface ProducedByFacts {
  /** The events a resumed run logged before (its run-start among them); empty for a new run. */
  earlier: readonly RunEvent[];
  productVersion: string | null;
  modelFile: ProducedBy['model']['file'];
}

/** The recorder: `record` wraps each event on its way to the log; `decidedBy` is the last decision's origin so far. */
export interface ProducedByRecorder {
  record(event: RunEvent): RunEvent;
  decidedBy(): DecisionOrigin | null;
}

export function producedByRecorder(facts: ProducedByFacts): ProducedByRecorder {
  const seen: RunEvent[] = [...facts.earlier];
  let decidedBy: DecisionOrigin | null = null;
  const record = (event: RunEvent): RunEvent => {
    let recorded = event;
    if (event.type === 'decision' && !event.origin) recorded = { ...event, origin: decisionOriginOf(seen, event, techniqueLabelOf) };
    if (event.type === 'run-end' && !event.producedBy) {
      recorded = { ...event, producedBy: deriveProducedBy([...seen, event], { labelOf: techniqueLabelOf, productVersion: facts.productVersion, modelFile: facts.modelFile }) };
    }
    if (recorded.type === 'decision') decidedBy = recorded.origin ?? null;
    seen.push(recorded);
    return recorded;
  };
  return { record, decidedBy: () => decidedBy };
}
