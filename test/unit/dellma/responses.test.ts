import { describe, expect, it } from 'vitest';
import type { FactorSpec } from '../../../src-main/engine/techniques/dellma/belief';
import { extractJsonObject } from '../../../src-main/engine/techniques/dellma/model-calls';
import { mapDecision, parseForecast, parseRanking } from '../../../src-main/engine/techniques/dellma/responses';

const asked: FactorSpec[] = [
  { name: 'climate condition', scope: { kind: 'shared' } },
  { name: 'apple price change', scope: { kind: 'action', action: 'apple' } },
];
const three = (likelihoods: string[]) => likelihoods.map((likelihood, index) => ({ value: `v${index}`, likelihood }));

describe('reading answers', () => {
  it('finds the JSON object in plain, fenced or wrapped answers', () => {
    expect(extractJsonObject('{"a":1}')).toEqual({ a: 1 });
    expect(extractJsonObject('Sure:\n```json\n{"a":2}\n```')).toEqual({ a: 2 });
    expect(extractJsonObject('Here it is {"a":3} hope it helps')).toEqual({ a: 3 });
    expect(extractJsonObject('[1,2]')).toBeNull();
    expect(extractJsonObject('no json')).toBeNull();
  });

  it('accepts a complete forecast, matching names loosely and noting what it read', () => {
    const text = JSON.stringify({
      factors: [
        { name: 'Climate  Condition', values: three(['very likely', 'Somewhat-likely', 'unlikely']) },
        { name: 'apple price change', values: three(['likely', 'likely', 'very unlikely']) },
        { name: 'pests', values: three(['likely', 'likely', 'likely']) },
      ],
    });
    const parsed = parseForecast(text, asked);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value.map((factor) => factor.name)).toEqual(['climate condition', 'apple price change']);
    expect(parsed.value[0]!.values.map((entry) => entry.likelihood)).toEqual(['very likely', 'somewhat likely', 'unlikely']);
    expect(parsed.notes).toEqual(['"climate condition": read "Somewhat-likely" as "somewhat likely"', 'ignored an unknown not asked for: "pests"']);
  });

  it('lists every problem of an unusable forecast', () => {
    const text = JSON.stringify({ factors: [{ name: 'climate condition', values: [...three(['likely', 'probable', 'likely'])] }] });
    const parsed = parseForecast(text, asked);
    expect(parsed).toEqual({ ok: false, problems: ['"climate condition": "probable" is not one of the likelihood words', '"apple price change" is missing'] });
    expect(parseForecast(JSON.stringify({ factors: [{ name: 'climate condition', values: [{ value: 'a', likelihood: 'likely' }, { value: 'A', likelihood: 'likely' }, { value: 'b', likelihood: 'likely' }] }] }), asked.slice(0, 1))).toEqual({
      ok: false,
      problems: ['"climate condition" repeats an outcome'],
    });
  });

  it('reads a ranking leniently and refuses one without a rank', () => {
    expect(parseRanking('{"decision": "Scenario 3", "rank": [3, "1", "Scenario 2"], "explanation": "x"}')).toEqual({ ok: true, value: { rank: [3, 1, 2], decision: 3, explanation: 'x' }, notes: [] });
    expect(parseRanking('{"decision": 1}')).toEqual({ ok: false, problems: ['"rank" is missing or empty'] });
    expect(parseRanking('I refuse')).toEqual({ ok: false, problems: ['the answer is not a JSON object'] });
  });

  it('maps a baseline decision to one action, or to none when ambiguous', () => {
    const actions = ['apple', 'grape', 'grapefruit'];
    expect(mapDecision('{"decision": "Grapefruit"}', actions)).toBe(2);
    expect(mapDecision('{"decision": "Option 2"}', actions)).toBe(1);
    expect(mapDecision('{"decision": "plant grape on all acres"}', actions)).toBe(1);
    expect(mapDecision('{"decision": "apple or grape"}', actions)).toBeNull();
    expect(mapDecision('I would plant grapefruit.', actions)).toBe(2);
  });
});
