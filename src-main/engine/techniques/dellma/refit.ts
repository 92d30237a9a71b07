import { dellmaStepSchemas, type DellmaExpected, type DellmaFit, type DellmaFrame, type DellmaRank, type DellmaSampling } from '../../../contract/dellma';
import { WorkbenchError } from '../../../contract/errors';
import type { BeliefFactor } from './belief';
import { decideFromRankings, type BatchRecord } from './pipeline';
import { stateText } from './prompts';
import { seededRandom } from './random';
import { naiveSample, pairedSample, type Sample } from './sampling';
import { dellmaSettings, rankStep, readRankingLines, resultSteps } from './technique';

/**
 * [ext] Ranking a batch by hand after a DeLLMa run has finished: the run's recorded steps
 * (its `dellma.*` tool events) are read back — the forecast in force, the seeded sampling,
 * each batch's final order, the fit's alpha and temperature — the analyst's order replaces
 * that batch's, and the fit, utilities, expected utilities, interval, sensitivity and
 * decision are computed again by the same code a run uses (`decideFromRankings`). No model
 * call. Each re-fit starts from the run's own batches, so re-fits never stack.
 */

/** One recorded DeLLMa step: the tool event's name and input. */
export interface RecordedStep {
  tool: string;
  input: unknown;
}

export interface RecordedRun {
  actions: string[];
  beliefs: BeliefFactor[];
  sampling: DellmaSampling;
  /** The run's final record of each batch (an analyst's step-through ranking wins over the model's), by batch number. */
  ranks: Map<number, DellmaRank>;
  fit: DellmaFit;
}

/** The last record of a step the run itself made (a re-fit's cells are left out). */
function lastOf<S extends 'frame' | 'forecast' | 'sampling' | 'fit'>(steps: readonly RecordedStep[], step: S): ReturnType<(typeof dellmaStepSchemas)[S]['parse']> | null {
  for (let index = steps.length - 1; index >= 0; index--) {
    const recorded = steps[index] as RecordedStep;
    if (recorded.tool !== `dellma.${step}`) continue;
    const parsed = dellmaStepSchemas[step].safeParse(recorded.input);
    if (parsed.success && !(parsed.data as { refit?: unknown }).refit) return parsed.data as ReturnType<(typeof dellmaStepSchemas)[S]['parse']>;
  }
  return null;
}

/** Reads a finished run's steps back; a run that never reached its fit cannot be re-fitted. */
export function readRecordedRun(steps: readonly RecordedStep[]): RecordedRun {
  const frame: DellmaFrame | null = lastOf(steps, 'frame');
  const forecast = lastOf(steps, 'forecast');
  const sampling = lastOf(steps, 'sampling');
  const fit = lastOf(steps, 'fit');
  if (!frame || !forecast || !sampling || !fit) throw new WorkbenchError('invalid-request', 'This run has no fitted DeLLMa utilities to re-fit (it ended before its fit, or is a baseline).');
  const ranks = new Map<number, DellmaRank>();
  for (const recorded of steps) {
    if (recorded.tool !== 'dellma.rank') continue;
    const parsed = dellmaStepSchemas.rank.safeParse(recorded.input);
    if (parsed.success && !parsed.data.refit) ranks.set(parsed.data.batch, parsed.data);
  }
  const beliefs: BeliefFactor[] = forecast.factors.map((factor) => ({
    name: factor.name,
    scope: factor.action === null ? { kind: 'shared' } : { kind: 'action', action: factor.action },
    values: factor.values.map((entry) => ({ value: entry.value, likelihood: entry.likelihood })),
    probabilities: factor.values.map((entry) => entry.probability),
  }));
  return { actions: frame.actions, beliefs, sampling, ranks, fit };
}

/** The run's seeded draw again, checked against what its ranking cells showed. */
function redraw(run: RecordedRun): Sample {
  const random = seededRandom(run.sampling.seed);
  const sample = run.sampling.variant === 'naive' ? naiveSample(random, run.beliefs, run.actions.length, run.sampling.items) : pairedSample(random, run.beliefs, run.actions.length, run.sampling.perAction);
  const matches =
    sample.items.length === run.sampling.items &&
    [...run.ranks.values()].every((rank) =>
      rank.items.every((item) => {
        const drawn = sample.items[item.position];
        return drawn !== undefined && run.actions[drawn.action] === item.action && stateText(run.beliefs, sample.states[drawn.stateId] ?? []) === item.state;
      }),
    );
  if (!matches) throw new WorkbenchError('invalid-request', "The run's record does not reproduce its sampled scenarios, so it cannot be re-fitted.");
  return sample;
}

export interface Refit {
  batch: number;
  /** The batch as its cell showed it (`number | option | future`, best first) and as the analyst ranked it. */
  originalLines: string[];
  analystLines: string[];
  rank: { record: DellmaRank; text: string };
  fit: { record: DellmaFit; text: string };
  expected: { record: DellmaExpected; text: string };
}

/** A batch's scenarios as review lines, best first in `order` (scenario numbers; the numbering when there is none). */
export function batchLines(rank: DellmaRank, order: readonly number[] | null): string[] {
  const byNumber = new Map(rank.items.map((item) => [item.number, item]));
  return (order ?? rank.items.map((item) => item.number)).map((number) => {
    const item = byNumber.get(number);
    return `${number} | ${item?.action ?? '?'} | ${item?.state ?? '?'}`;
  });
}

/** The re-fit with batch `batch` ranked as `lines` (the review lines, best first), from the run's recorded steps. */
export function refitWithAnalystRanking(steps: readonly RecordedStep[], batch: number, lines: readonly string[]): Refit {
  const run = readRecordedRun(steps);
  const target = run.ranks.get(batch);
  if (!target) throw new WorkbenchError('not-found', `The run has no batch ${batch} (batches: ${[...run.ranks.keys()].join(', ')})`);
  const read = readRankingLines(lines, target.items.length);
  if (!read.ok) throw new WorkbenchError('invalid-request', `The ranking cannot be used: ${read.problems.join('; ')}`);
  const sample = redraw(run);
  const positionOf = (rank: DellmaRank, number: number): number => rank.items[number - 1]?.position ?? -1;
  const batches: BatchRecord[] = [...run.ranks.values()]
    .sort((a, b) => a.batch - b.batch)
    .map((rank) => {
      const order = rank.order ? rank.order.map((number) => positionOf(rank, number)) : null;
      const record: BatchRecord = {
        window: { index: rank.batch - 1, start: rank.items[0]?.position ?? 0, size: rank.items.length },
        items: rank.items.map((item) => item.position),
        attempts: rank.attempts,
        rank: rank.rank,
        repair: rank.repairs ? { ...rank.repairs, order: (rank.order ?? []).map((number) => number - 1) } : null,
        order,
        decision: null,
        explanation: rank.explanation,
        comparisons: rank.comparisons,
        rankedBy: rank.rankedBy ?? 'model',
        modelOrder: rank.modelOrder ? rank.modelOrder.map((number) => positionOf(rank, number)) : null,
      };
      if (rank.batch !== batch) return record;
      const analystOrder = read.order.map((number) => positionOf(rank, number));
      const comparisons = run.fit.kind === 'top1' ? analystOrder.length - 1 : (analystOrder.length * (analystOrder.length - 1)) / 2;
      return { ...record, order: analystOrder, rankedBy: 'analyst', modelOrder: order, comparisons, explanation: 'Ranked by the analyst after the run.' };
    });
  const variant = run.sampling.variant ?? 'pairs';
  const result = decideFromRankings(1, run.actions, run.beliefs, sample, batches, { variant, alpha: run.fit.alpha, softmaxTemperature: run.fit.temperature, bootstrapResamples: dellmaSettings.bootstrapResamples }, run.sampling.seed);
  const cells = resultSteps({ problem: 1, variant, ...result }, run.beliefs, run.fit.temperature);
  const changed = batches.find((record) => record.window.index === batch - 1);
  if (!cells || !changed) throw new WorkbenchError('internal', 'The re-fit gave no result');
  const rank = rankStep(changed, sample, run.actions, run.beliefs);
  const refit = { batch };
  return {
    batch,
    originalLines: batchLines(target, target.order),
    analystLines: batchLines(target, read.order),
    rank: { record: { ...rank.record, refit }, text: `[ext] Re-fit after the run: ${rank.text}` },
    fit: { record: { ...cells.fit.record, refit }, text: `[ext] Re-fit after the run with batch ${batch} ranked by the analyst (no model call): ${cells.fit.text}` },
    expected: { record: { ...cells.expected.record, refit }, text: `[ext] Re-fit with batch ${batch} ranked by the analyst: ${cells.expected.text}` },
  };
}
