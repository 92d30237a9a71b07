/**
 * The analyst ranks a DeLLMa batch by hand (step-through), in process with a scripted gate
 * and the real `openai` SDK against the scripted server: after the model's ranking the batch
 * waits as `number | option | future` lines; the analyst's reordering replaces the model's
 * comparisons for the batch, so the fit is exactly the Bradley–Terry fit of the analyst's
 * pairs, the decision follows it, and both the cells and the review record say it was the
 * analyst's. An order that is not the batch's numbers each once is refused, the model's kept.
 */
import { describe, expect, it } from 'vitest';
import { dellmaExpectedSchema, dellmaFitSchema, dellmaRankSchema } from '../../../src-main/contract/dellma';
import type { RunEvent } from '../../../src-main/contract/run';
import type { ReviewDecision, ReviewRequest } from '../../../src-main/engine/review-gate';
import { fitPairs } from '../../../src-main/engine/techniques/dellma/bradley-terry';
import { dellmaSettings, readRankingLines } from '../../../src-main/engine/techniques/dellma/technique';
import { rankingPreferring } from './scripted-dellma-model';
import { storeQuestionModel, toolInputs as inputs, useStoreQuestionRuns } from './store-question-run';

const runStoreQuestion = useStoreQuestionRuns(storeQuestionModel((request) => rankingPreferring(request, 'south'), 'South first.'));
const decide = (rankingDecision: (request: Extract<ReviewRequest, { subject: 'ranking' }>) => ReviewDecision) =>
  runStoreQuestion((request) => (request.subject === 'ranking' ? rankingDecision(request) : { action: 'approve' }));

const outputs = (events: RunEvent[], tool: string): string[] => events.flatMap((event) => (event.type === 'tool' && event.tool === tool ? [event.output] : []));
const optionOf = (line: string): string => line.split('|')[1]?.trim() ?? '';

describe('ranking a DeLLMa batch by hand', () => {
  it('puts the analyst’s comparisons into the fit instead of the model’s, labelled as the analyst’s', async () => {
    // The analyst puts every north scenario first, keeping the model's order within each option.
    const reorder = (lines: string[]): string[] => [...lines.filter((line) => optionOf(line) === 'north'), ...lines.filter((line) => optionOf(line) === 'south')];
    let offered: string[] = [];
    const run = await decide((request) => {
      offered = request.steps;
      return { action: 'edit', steps: reorder(request.steps) };
    });

    // 2 options × 16 futures = 32 scenarios in one batch: one review point, the model's order best first.
    expect(run.reviews.map((request) => request.subject)).toEqual(['query', 'forecast', 'ranking']);
    expect(offered).toHaveLength(2 * dellmaSettings.perAction);
    expect(offered.slice(0, dellmaSettings.perAction).every((line) => optionOf(line) === 'south')).toBe(true);

    const ranks = inputs(run.events, 'dellma.rank').map((input) => dellmaRankSchema.parse(input));
    expect(ranks.map((rank) => rank.rankedBy)).toEqual(['model', 'analyst']);
    const analyst = ranks[1];
    const analystNumbers = reorder(offered).map((line) => Number(line.split('|')[0]));
    expect(analyst?.order).toEqual(analystNumbers);
    expect(analyst?.modelOrder).toEqual(ranks[0]?.order);
    expect(analyst?.comparisons).toBe((32 * 31) / 2);
    expect(outputs(run.events, 'dellma.rank')[1]).toMatch(/^Batch 1 ranked by the analyst/);

    const review = run.events.find((event) => event.type === 'analyst-review' && event.subject === 'ranking');
    expect(review).toMatchObject({ action: 'edit', node: 'batch-1', original: offered.join('\n'), edited: reorder(offered).join('\n') });

    // The fit is exactly the Bradley–Terry fit of the analyst's pairs (every earlier scenario beats every later one).
    const fit = dellmaFitSchema.parse(inputs(run.events, 'dellma.fit')[0]);
    const positions = analystNumbers.map((number) => analyst?.items[number - 1]?.position ?? -1);
    const pairs = positions.flatMap((winner, i) => positions.slice(i + 1).map((loser): [number, number] => [winner, loser]));
    const expectedTheta = fitPairs(fit.items.length, pairs, { alpha: dellmaSettings.alpha }).theta;
    fit.items.forEach((item) => expect(item.theta).toBeCloseTo(expectedTheta[item.position] ?? Number.NaN, 9));
    // …so utilities fall strictly along the analyst's order, and north wins.
    const utilityAt = (position: number): number => fit.items.find((item) => item.position === position)?.utility ?? Number.NaN;
    for (let i = 1; i < positions.length; i++) expect(utilityAt(positions[i - 1] as number)).toBeGreaterThan(utilityAt(positions[i] as number));
    expect(outputs(run.events, 'dellma.fit')[0]).toContain('Batch(es) 1 ranked by the analyst');
    const expected = dellmaExpectedSchema.parse(inputs(run.events, 'dellma.expected')[0]);
    expect(expected.chosen).toBe('north');
    expect(run.decision).toBe('north');
  });

  it('keeps the model’s ranking when the analyst approves it', async () => {
    const run = await decide(() => ({ action: 'approve' }));
    expect(inputs(run.events, 'dellma.rank').map((input) => dellmaRankSchema.parse(input).rankedBy)).toEqual(['model']);
    expect(run.decision).toBe('south');
  });

  it('refuses an order that is not the batch’s numbers each once, names the problems, and keeps the model’s ranking', async () => {
    const run = await decide((request) => ({ action: 'edit', steps: [request.steps[1] ?? '', request.steps[1] ?? '', 'first | north | ?'] }));
    const review = run.events.find((event) => event.type === 'analyst-review' && event.subject === 'ranking');
    expect(review).toMatchObject({ action: 'note' });
    expect(review?.type === 'analyst-review' && review.note).toMatch(/^The ranking was not used: line 2: scenario \d+ is listed twice; line 3: "first \| north \| \?" does not start with a scenario number from 1 to 32; missing scenario\(s\) /);
    expect(inputs(run.events, 'dellma.rank').map((input) => dellmaRankSchema.parse(input).rankedBy)).toEqual(['model']);
    expect(run.decision).toBe('south');
  });

  it('reads ranking lines by their leading numbers', () => {
    expect(readRankingLines(['2 | a | x', ' 3 | b', '1'], 3)).toEqual({ ok: true, order: [2, 3, 1] });
    expect(readRankingLines(['2 | a', '4 | b'], 3)).toEqual({ ok: false, problems: ['line 2: "4 | b" does not start with a scenario number from 1 to 3', 'missing scenario(s) 1, 3'] });
  });
});
