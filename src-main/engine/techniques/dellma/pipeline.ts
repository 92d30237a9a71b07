import { createHash } from 'node:crypto';
import { WorkbenchError } from '../../../contract/errors';
import type { ChatMessage } from '../../../llm/types';
import { normaliseFactor, type BeliefFactor, type FactorSpec, type State } from './belief';
import { fitPairs, fitTop1, type BradleyTerryFit } from './bradley-terry';
import { globalPosition, windows, type Window } from './minibatch';
import type { CallPurpose, ModelCaller } from './model-calls';
import { cotDecisionMessages, cotFactorsMessages, cotLikelihoodMessages, forecastMessages, rankingMessages, zeroShotMessages, type ProblemFrame } from './prompts';
import { seededRandom } from './random';
import { rankToPairs, rankToTop1, repairRank, type Choice, type Pair, type RankRepair } from './ranking';
import { decisionReply, forecastReply, rankingReply } from './reply-schemas';
import { mapDecision, parseForecast, parseRanking } from './responses';
import { naiveSample, pairedSample, type Item } from './sampling';
import { bootstrap, decide, expectedUtilities, sensitivity, utilities, type BootstrapResult, type Decision } from './utility';

/** The three DeLLMa variants and the paper's three baselines. */
export const variants = ['pairs', 'top1', 'naive', 'zero-shot', 'cot', 'sc'] as const;
export type Variant = (typeof variants)[number];
export const isDellmaVariant = (variant: Variant): variant is 'pairs' | 'top1' | 'naive' => variant === 'pairs' || variant === 'top1' || variant === 'naive';

export interface DellmaParameters {
  variant: Variant;
  /** Per-action sample size s_a (Pairs, Top-1) [paper: 64]. */
  perAction: number;
  /** Minibatch size b [paper: 32]. */
  batch: number;
  /** Overlap q [paper: 0.25 agriculture, 0.5 stocks]. */
  overlap: number;
  /** Total items of the Naive variant, ranked in one call [paper: 50]. */
  naiveSamples: number;
  /** Bradley–Terry regulariser [code: 2e-3 Pairs, 1e-3 Top-1/Naive on agriculture; 2e-8 stocks]. */
  alpha: number;
  /** Softmax temperature over all items [code: 1 agriculture, 0.1 stocks]. */
  softmaxTemperature: number;
  seed: number;
  /** Bootstrap resamples for the interval [ext]. */
  bootstrapResamples: number;
  /** Self-consistency: answers and their temperature [paper: 5 at 0.5]. */
  selfConsistency: number;
  selfConsistencyTemperature: number;
  /** Extra asks after an unusable ranking or forecast answer [ext: the reference code re-asks never]. */
  maxRepairs: number;
}

/** The forecast of a context: normalised beliefs per factor, and how they were obtained. */
export interface ForecastOutcome {
  /** Who made it: the model's forecast call, or an analyst's file [ext]. */
  source: 'model' | 'analyst';
  /** sha256 of the model and the forecast prompt (the cache key), or of the analyst's file. */
  key: string;
  factors: BeliefFactor[];
  attempts: number;
  notes: string[];
}

export type ForecastCache = Map<string, ForecastOutcome>;

/** The forecast call's cache key: sha256 of the model and the exact prompt (goal, options, factors, context). */
export function forecastKey(modelDescription: string, input: { context: string; goal: string; factors: readonly FactorSpec[] }): string {
  const messages = forecastMessages(input.context, input.goal, input.factors);
  return createHash('sha256').update(JSON.stringify({ model: modelDescription, messages })).digest('hex');
}

/**
 * One forecast call per context [paper Alg. 1; code: cached per domain]: the model gives 3
 * values and a verbal likelihood for every factor; an unusable answer is sent back with its
 * problems, at most `maxRepairs` times. The result is cached by the hash of the model and
 * the prompt, so every problem sharing the context reuses it.
 */
export async function forecast(caller: ModelCaller, modelDescription: string, input: { context: string; goal: string; factors: readonly FactorSpec[] }, cache: ForecastCache, maxRepairs: number): Promise<ForecastOutcome> {
  const messages = forecastMessages(input.context, input.goal, input.factors);
  const key = forecastKey(modelDescription, input);
  const cached = cache.get(key);
  if (cached) return cached;
  let conversation: ChatMessage[] = messages;
  for (let attempt = 0; attempt <= maxRepairs; attempt++) {
    const answer = await caller.call('dellma.forecast', null, attempt, conversation, { temperature: 0, maxTokens: 4096, output: forecastReply(input.factors) });
    const parsed = parseForecast(answer, input.factors);
    if (parsed.ok) {
      const outcome: ForecastOutcome = { source: 'model', key, factors: parsed.value.map(normaliseFactor), attempts: attempt + 1, notes: parsed.notes };
      cache.set(key, outcome);
      return outcome;
    }
    conversation = [...conversation, { role: 'assistant', content: answer }, { role: 'user', content: `That answer cannot be used: ${parsed.problems.join('; ')}. Reply again with the complete JSON object.` }];
    if (attempt === maxRepairs) throw new WorkbenchError('invalid-request', `The model's forecast is unusable after ${attempt + 1} answers: ${parsed.problems.join('; ')}`);
  }
  throw new WorkbenchError('internal', 'unreachable');
}

/**
 * An analyst's forecast in place of the model's [ext]: a JSON file with the forecast's shape
 * (`{"factors": [{"name", "values": [{"value", "likelihood"}]}]}`; a run record's `forecast`
 * object is accepted as is). Checked exactly like a model's answer; probabilities are always
 * recomputed from the verbal likelihoods, so an edited likelihood is what counts.
 */
export function analystForecast(text: string, factors: readonly FactorSpec[]): ForecastOutcome {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new WorkbenchError('invalid-request', `The forecast file is not JSON: ${(error as Error).message}`);
  }
  const inner = json !== null && typeof json === 'object' && 'forecast' in json ? (json as { forecast: unknown }).forecast : json;
  const parsed = parseForecast(JSON.stringify(inner), factors);
  if (!parsed.ok) throw new WorkbenchError('invalid-request', `The forecast file cannot be used: ${parsed.problems.join('; ')}`);
  return { source: 'analyst', key: createHash('sha256').update(text).digest('hex'), factors: parsed.value.map(normaliseFactor), attempts: 0, notes: parsed.notes };
}

export interface BatchRecord {
  window: Window;
  /** Global item positions, in the order they were numbered 1..size. */
  items: number[];
  attempts: number;
  /** The model's 1-based rank (last attempt), or null when no usable answer came. */
  rank: number[] | null;
  repair: RankRepair | null;
  /** Global positions in repaired order, best first. */
  order: number[] | null;
  decision: number | null;
  explanation: string;
  comparisons: number;
  /** Who ranked the batch: the model, or the analyst at the batch's review point (whose order then replaces the model's). */
  rankedBy: 'model' | 'analyst';
  /** The model's order (global positions, best first) when the analyst re-ranked the batch. */
  modelOrder: number[] | null;
}

export interface FitRecord extends BradleyTerryFit {
  kind: 'pairs' | 'top1';
  comparisons: number;
  /** Connected components of the comparison graph (1 when every item is linked). */
  components: number;
  alpha: number;
}

export interface Sensitivity {
  factor: string;
  value: string;
  from: number;
  to: number;
  shift: number;
  newDecision: string;
}

export interface ProblemResult {
  problem: number;
  variant: Variant;
  actions: string[];
  /** The chosen action, or null with the reason in `note`. */
  chosen: string | null;
  note: string | null;
  /** DeLLMa variants only. */
  dellma?: {
    seed: number;
    factors: string[];
    states: State[];
    items: Item[];
    batches: BatchRecord[];
    fit: FitRecord;
    utilities: number[];
    expected: (number | null)[];
    decision: Decision | null;
    interval: BootstrapResult;
    sensitivity: Sensitivity[];
  };
  /** Baselines only: each answer's mapped choice. */
  baseline?: { answers: { purpose: CallPurpose; choice: string | null }[]; votes: Record<string, number> };
}

/** Seed of one problem, from the run's seed and the problem id (documented so a problem can be re-run alone). */
export function problemSeed(seed: number, problem: number): number {
  return (Math.imul(problem, 0x9e3779b9) + seed) >>> 0;
}

function components(count: number, links: Iterable<[number, number]>): number {
  const parent = Array.from({ length: count }, (_, index) => index);
  const root = (node: number): number => {
    while (parent[node] !== node) node = parent[node] = parent[parent[node] as number] as number;
    return node;
  };
  let groups = count;
  for (const [a, b] of links) {
    const ra = root(a);
    const rb = root(b);
    if (ra !== rb) {
      parent[ra] = rb;
      groups--;
    }
  }
  return groups;
}

/** How a run follows, reviews and resumes the ranking batches (all optional: the benchmark uses none). */
export interface BatchHooks {
  /** Told each batch as soon as its ranking is in (the notebook shows it while the next is asked). */
  onBatch?: (record: BatchRecord, sample: { states: State[]; items: Item[] }) => void;
  /**
   * Step-through: after the model's ranking the analyst may rank the batch by hand; the
   * returned order (global positions, best first) replaces the model's comparisons for it.
   */
  reviewBatch?: (record: BatchRecord) => Promise<number[] | null>;
  /** Told each batch once the model's ranking is in and shown, before its review (so a resume does not ask it again). */
  onAnswered?: (record: BatchRecord) => void;
  /** The batch a resumed run had answered but not finished reviewing: reviewed, not asked again. */
  answered?: BatchRecord | null;
  /** Told each batch once it is final (after any review), so a resume can start after it. */
  onBatchDone?: (record: BatchRecord) => void;
  /** Batches a resumed run had finished, in window order: used as they were, not asked again. */
  completed?: readonly BatchRecord[];
}

/** The comparisons a batch's order (best first) gives the fit: every ordered pair, or the winner over the rest (Top-1). */
function comparisonsOf(variant: string, order: readonly number[] | null): { pairs: Pair[]; choice: Choice | null; count: number } {
  if (!order) return { pairs: [], choice: null, count: 0 };
  if (variant === 'top1') {
    const choice = rankToTop1(order);
    return { pairs: [], choice, count: choice ? choice.losers.length : 0 };
  }
  const pairs = rankToPairs(order);
  return { pairs, choice: null, count: pairs.length };
}

/** DeLLMa-Pairs / Top-1 / Naive on one problem, given the beliefs of its factors. */
export async function solveWithDellma(
  caller: ModelCaller,
  problem: number,
  frame: ProblemFrame,
  beliefs: readonly BeliefFactor[],
  params: DellmaParameters,
  hooks: BatchHooks = {},
): Promise<ProblemResult> {
  const { onBatch, onAnswered, answered, reviewBatch, onBatchDone, completed = [] } = hooks;
  const variant = params.variant;
  if (!isDellmaVariant(variant)) throw new WorkbenchError('invalid-request', `${variant} is a baseline, not a DeLLMa variant.`);
  const seed = problemSeed(params.seed, problem);
  const random = seededRandom(seed);
  const actionCount = frame.actions.length;
  const sample = variant === 'naive' ? naiveSample(random, beliefs, actionCount, params.naiveSamples) : pairedSample(random, beliefs, actionCount, params.perAction);
  const itemCount = sample.items.length;
  const plan = variant === 'naive' ? [{ index: 0, start: 0, size: itemCount }] : windows(itemCount, params.batch, params.overlap);
  const batches: BatchRecord[] = [];
  /** One ranking call (and its repairs) for a window; the notebook is told as soon as it is in. */
  const askBatch = async (window: Window): Promise<BatchRecord> => {
    const positions = Array.from({ length: window.size }, (_, local) => globalPosition(window, local + 1));
    const entries = positions.map((position) => {
      const item = sample.items[position] as Item;
      return { state: sample.states[item.stateId] as State, action: item.action };
    });
    let conversation = rankingMessages(frame, beliefs, entries);
    const record: BatchRecord = { window, items: positions, attempts: 0, rank: null, repair: null, order: null, decision: null, explanation: '', comparisons: 0, rankedBy: 'model', modelOrder: null };
    for (let attempt = 0; attempt <= params.maxRepairs; attempt++) {
      record.attempts = attempt + 1;
      const answer = await caller.call('dellma.rank', problem, attempt, conversation, { temperature: 0, output: rankingReply(window.size) });
      const parsed = parseRanking(answer);
      if (parsed.ok) {
        const repair = repairRank(parsed.value.rank, window.size);
        record.rank = parsed.value.rank;
        record.repair = repair;
        record.order = repair.order.map((local) => positions[local] as number);
        record.decision = parsed.value.decision;
        record.explanation = parsed.value.explanation;
        break;
      }
      conversation = [...conversation, { role: 'assistant', content: answer }, { role: 'user', content: `That answer cannot be used: ${parsed.problems.join('; ')}. Reply again with the complete JSON object.` }];
    }
    record.comparisons = comparisonsOf(variant, record.order).count;
    onBatch?.(record, sample);
    onAnswered?.(record);
    return record;
  };
  for (const window of plan) {
    const done = completed[window.index];
    if (done) {
      // Finished before the run was interrupted: its comparisons enter the fit as they were.
      batches.push(structuredClone(done));
      continue;
    }
    // A batch the model had answered (and the notebook shown) when the run stopped at its review is reviewed, not asked again.
    const record = answered?.window.index === window.index ? structuredClone(answered) : await askBatch(window);
    batches.push(record);
    const analystOrder = reviewBatch ? await reviewBatch(record) : null;
    if (analystOrder) {
      record.modelOrder = record.order;
      record.order = analystOrder;
      record.rankedBy = 'analyst';
      record.comparisons = comparisonsOf(variant, analystOrder).count;
      onBatch?.(record, sample);
    }
    onBatchDone?.(record);
  }

  return { problem, variant, ...decideFromRankings(problem, frame.actions.map((action) => action.name), beliefs, sample, batches, params, seed) };
}

/**
 * Everything after the rankings, in code: the Bradley–Terry fit of the batches' orders, the
 * utilities over all items together, expected utilities, the decision, the bootstrap interval
 * and the sensitivity. A run and an analyst's later re-fit of its recorded batches both use it,
 * so a re-fit is exactly a fresh fit on the same comparisons.
 */
export function decideFromRankings(
  problem: number,
  names: readonly string[],
  beliefs: readonly BeliefFactor[],
  sample: { states: State[]; items: Item[] },
  batches: BatchRecord[],
  params: Pick<DellmaParameters, 'variant' | 'alpha' | 'softmaxTemperature' | 'bootstrapResamples'>,
  seed: number,
): Pick<ProblemResult, 'actions' | 'chosen' | 'note' | 'dellma'> {
  const kind = params.variant === 'top1' ? 'top1' : 'pairs';
  const itemCount = sample.items.length;
  const actionCount = names.length;
  const pairs: Pair[] = [];
  const choices: Choice[] = [];
  for (const batch of batches) {
    const compared = comparisonsOf(params.variant, batch.order);
    pairs.push(...compared.pairs);
    if (compared.choice) choices.push(compared.choice);
  }
  let fitted: BradleyTerryFit;
  try {
    fitted = kind === 'top1' ? fitTop1(itemCount, choices, { alpha: params.alpha }) : fitPairs(itemCount, pairs, { alpha: params.alpha });
  } catch (error) {
    throw new WorkbenchError('invalid-request', `Problem ${problem}: ${WorkbenchError.from(error).message}`);
  }
  const links: [number, number][] = kind === 'top1' ? choices.flatMap((choice) => choice.losers.map((loser): [number, number] => [choice.winner, loser])) : pairs;
  const fit: FitRecord = { ...fitted, kind, comparisons: kind === 'top1' ? choices.length : pairs.length, components: components(itemCount, links), alpha: params.alpha };
  const utility = utilities(fitted.theta, params.softmaxTemperature);
  const expected = expectedUtilities(sample.items, utility, actionCount);
  const decision = decide(expected);
  const interval = bootstrap(sample.items, utility, actionCount, sample.states.length, { resamples: params.bootstrapResamples, seed });
  const flips = sensitivity(beliefs, sample.states, sample.items, utility, actionCount).map(
    (flip): Sensitivity => ({
      factor: beliefs[flip.factor]?.name ?? '?',
      value: beliefs[flip.factor]?.values[flip.value]?.value ?? '?',
      from: flip.from,
      to: flip.to,
      shift: flip.shift,
      newDecision: names[flip.newDecision] ?? '?',
    }),
  );
  // [ext] An exact tie at the top is no decision: the reference code's argmax would silently
  // take the first-listed action, the very effect behind the per-action pitfall.
  const tiedWith = decision?.tied ? names.filter((_name, index) => expected[index] === expected[decision.action]) : [];
  const chosen = decision && !decision.tied ? (names[decision.action] ?? null) : null;
  const note = !decision ? 'no action has an estimate' : decision.tied ? `tie between ${tiedWith.join(', ')} (no decision)` : batches.every((batch) => batch.order === null) ? 'no usable ranking' : null;
  return {
    actions: [...names],
    chosen,
    note,
    dellma: { seed, factors: beliefs.map((factor) => factor.name), states: sample.states, items: sample.items, batches, fit, utilities: utility, expected, decision, interval, sensitivity: flips },
  };
}

/** Zero-shot, chain-of-thought (3 calls) and self-consistency (K answers, majority vote) [paper §4]. */
export async function solveWithBaseline(caller: ModelCaller, problem: number, frame: ProblemFrame, params: DellmaParameters): Promise<ProblemResult> {
  const names = frame.actions.map((action) => action.name);
  const answers: { purpose: CallPurpose; choice: string | null }[] = [];
  const choose = (purpose: CallPurpose, text: string): void => {
    const index = mapDecision(text, names);
    answers.push({ purpose, choice: index === null ? null : (names[index] ?? null) });
  };
  if (params.variant === 'zero-shot') {
    choose('dellma.zero-shot', await caller.call('dellma.zero-shot', problem, 0, zeroShotMessages(frame), { temperature: 0, output: decisionReply(names) }));
  } else if (params.variant === 'cot') {
    const factors = await caller.call('dellma.cot-factors', problem, 0, cotFactorsMessages(frame), { temperature: 0 });
    const likelihoods = await caller.call('dellma.cot-likelihoods', problem, 0, cotLikelihoodMessages(frame, factors), { temperature: 0 });
    choose('dellma.cot-decision', await caller.call('dellma.cot-decision', problem, 0, cotDecisionMessages(frame, factors, likelihoods), { temperature: 0, output: decisionReply(names) }));
  } else if (params.variant === 'sc') {
    for (let k = 0; k < params.selfConsistency; k++) {
      choose('dellma.self-consistency', await caller.call('dellma.self-consistency', problem, k, zeroShotMessages(frame), { temperature: params.selfConsistencyTemperature, output: decisionReply(names) }));
    }
  } else throw new WorkbenchError('invalid-request', `${params.variant} is a DeLLMa variant, not a baseline.`);
  const votes: Record<string, number> = {};
  for (const answer of answers) if (answer.choice !== null) votes[answer.choice] = (votes[answer.choice] ?? 0) + 1;
  // Majority; a tie goes to the action listed first among the tied (stated, as in a plain argmax).
  let chosen: string | null = null;
  for (const name of names) if ((votes[name] ?? 0) > (chosen === null ? 0 : (votes[chosen] ?? 0))) chosen = name;
  return { problem, variant: params.variant, actions: names, chosen, note: chosen === null ? 'no answer named an option' : null, baseline: { answers, votes } };
}

