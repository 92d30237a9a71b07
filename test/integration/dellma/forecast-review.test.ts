/**
 * The forecast review point of the `dellma` technique (step-through), in process with a
 * scripted gate and the real `openai` SDK against the scripted server: the analyst's edit is
 * recorded as an analyst review of the forecast, becomes a forecast of its own, and drives
 * the sampling, the fit and the expected utilities; an unreadable edit is refused with its
 * problems and the model's forecast is used.
 */
import { describe, expect, it } from 'vitest';
import { dellmaExpectedSchema, dellmaForecastSchema, dellmaSamplingSchema } from '../../../src-main/contract/dellma';
import type { RunEvent } from '../../../src-main/contract/run';
import type { ReviewDecision } from '../../../src-main/engine/review-gate';
import { rankingReadingFutures } from './scripted-dellma-model';
import { storeQuestionModel, toolInputs as inputs, useStoreQuestionRuns } from './store-question-run';

const runStoreQuestion = useStoreQuestionRuns(storeQuestionModel((request) => rankingReadingFutures(request, 'south'), 'South, and better futures first.'));
const decide = (forecastDecision: ReviewDecision) => runStoreQuestion((request) => (request.subject === 'forecast' ? forecastDecision : { action: 'approve' }));

const worseShare = (events: RunEvent[]): number => {
  const futures = dellmaSamplingSchema.parse(inputs(events, 'dellma.sampling')[0]).futures ?? [];
  return futures.filter((future) => future.state.includes('how south turns out = worse')).length / futures.length;
};

describe('the forecast review point of DeLLMa', () => {
  it('uses the analyst’s edit for everything after it and records it as an analyst review', async () => {
    const approved = await decide({ action: 'approve' });
    const original = approved.reviews.find((request) => request.subject === 'forecast');
    expect(approved.reviews.map((request) => request.subject)).toEqual(['query', 'forecast', 'ranking']);
    expect(original?.subject === 'forecast' && original.steps.slice(-3)).toEqual(['how south turns out | worse | somewhat likely', 'how south turns out | same | very likely', 'how south turns out | better | unlikely']);

    const lines = (original?.subject === 'forecast' ? original.steps : []).map((line) => line.replace('how south turns out | worse | somewhat likely', 'how south turns out | worse | very likely').replace('how south turns out | same | very likely', 'how south turns out | same | very unlikely'));
    const edited = await decide({ action: 'edit', steps: lines });
    expect(edited.decision).toBe('south');
    const review = edited.events.find((event) => event.type === 'analyst-review' && event.subject === 'forecast');
    expect(review).toMatchObject({ subject: 'forecast', action: 'edit', node: 'forecast', original: (original?.subject === 'forecast' ? original.steps : []).join('\n'), edited: lines.join('\n') });
    const forecasts = inputs(edited.events, 'dellma.forecast').map((input) => dellmaForecastSchema.parse(input));
    expect(forecasts.map((forecast) => forecast.source)).toEqual(['model', 'analyst']);
    // 6, 1, 2 normalised.
    expect(forecasts[1]?.factors.at(-1)?.values.map((entry) => entry.probability)).toEqual([6 / 9, 1 / 9, 2 / 9]);
    // The futures are drawn from the edit: south "worse" far more often, and the utilities follow.
    expect(worseShare(edited.events)).toBeGreaterThan(worseShare(approved.events));
    const expected = (events: RunEvent[]): (number | null)[] => dellmaExpectedSchema.parse(inputs(events, 'dellma.expected')[0]).rows.map((row) => row.expected);
    expect(expected(edited.events)).not.toEqual(expected(approved.events));
  });

  it('refuses an edit it cannot read, names the problems, and goes on with the model’s forecast', async () => {
    const run = await decide({ action: 'edit', steps: ['how south turns out | worse | probably'] });
    const review = run.events.find((event) => event.type === 'analyst-review' && event.subject === 'forecast');
    expect(review).toMatchObject({ subject: 'forecast', action: 'note', note: 'The edit was not used: line 1: "probably" is not one of very likely, likely, somewhat likely, somewhat unlikely, unlikely, very unlikely' });
    expect(inputs(run.events, 'dellma.forecast').map((input) => dellmaForecastSchema.parse(input).source)).toEqual(['model']);
    expect(run.decision).toBe('south');
  });
});
