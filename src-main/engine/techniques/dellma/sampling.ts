import { WorkbenchError } from '../../../contract/errors';
import type { BeliefFactor, State } from './belief';
import { drawIndex, shuffled, type Random } from './random';

/** One state–action pair to be ranked. `stateId` says which sampled state it carries. */
export interface Item {
  stateId: number;
  /** Index into the problem's actions. */
  action: number;
}

/** Sampled states and the items built from them, in the order they will be ranked. */
export interface Sample {
  states: State[];
  items: Item[];
}

/** Draws one state: each factor independently from its marginal [paper Alg. 1]. */
export function sampleState(random: Random, factors: readonly BeliefFactor[]): State {
  return factors.map((factor) => drawIndex(random, factor.probabilities));
}

/**
 * Paired states [paper §3.3, "variance reduction"]: `perAction` states drawn i.i.d., each
 * paired with every action (n = |A|·perAction items), then the items shuffled with the same
 * generator. An item keeps its state and action together through the shuffle.
 */
export function pairedSample(random: Random, factors: readonly BeliefFactor[], actionCount: number, perAction: number): Sample {
  if (!Number.isInteger(perAction) || perAction < 1) throw new WorkbenchError('invalid-request', `The per-action sample size must be a positive whole number, got ${perAction}.`);
  if (actionCount < 1) throw new WorkbenchError('invalid-request', 'A decision needs at least one action.');
  const states = Array.from({ length: perAction }, () => sampleState(random, factors));
  const items: Item[] = [];
  for (let stateId = 0; stateId < perAction; stateId++) for (let action = 0; action < actionCount; action++) items.push({ stateId, action });
  return { states, items: shuffled(random, items) };
}

/**
 * DeLLMa-Naive [paper §4]: `total` items, each with its own state and an action drawn
 * uniformly; no pairing, ranked in one batch. An action may end up with no item.
 */
export function naiveSample(random: Random, factors: readonly BeliefFactor[], actionCount: number, total: number): Sample {
  if (!Number.isInteger(total) || total < 1) throw new WorkbenchError('invalid-request', `The sample size must be a positive whole number, got ${total}.`);
  const states: State[] = [];
  const items: Item[] = [];
  for (let index = 0; index < total; index++) {
    states.push(sampleState(random, factors));
    items.push({ stateId: index, action: random.int(actionCount) });
  }
  return { states, items };
}
