/**
 * [ext] The what-if lines of a DeLLMa question: what they map, and a clear error per line
 * when they cannot be read; and how the mapped values fix the forecast's values.
 */
import { describe, expect, it } from 'vitest';
import { exactNotComparedReason } from '../../../src-main/contract/dellma';
import { normaliseFactor } from '../../../src-main/engine/techniques/dellma/belief';
import { planExactOutcomes, summariseExactOutcomes } from '../../../src-main/engine/techniques/dellma/exact-outcomes';
import { frameFactors, readForecastLines } from '../../../src-main/engine/techniques/dellma/frame';
import { forecastMessages } from '../../../src-main/engine/techniques/dellma/prompts';
import { parseForecast } from '../../../src-main/engine/techniques/dellma/responses';
import { optionChange, readWhatIfMapping, type WhatIfMapping } from '../../../src-main/engine/techniques/dellma/whatif-mapping';

const listed = { unknowns: ['demand', 'price'], options: ['north', 'south'] };

function read(lines: string[]): ReturnType<typeof readWhatIfMapping> {
  return readWhatIfMapping(['Which region gets the store?', 'Options: north; south', 'Unknowns: demand; price', ...lines].join('\n'), listed);
}

function problems(lines: string[]): string[] {
  const result = read(lines);
  return result.ok ? [] : result.problems;
}

describe('reading the what-if lines', () => {
  it('maps unknown values, options and the objective', () => {
    const result = read([
      'What-if demand = low: UPDATE sales SET qty = qty * 0.8',
      'what-if DEMAND = high: UPDATE sales SET qty = qty * 1.2',
      'What-if price = steady: none',
      'What-if price = up: UPDATE sales SET price = price + 1',
      'What-if option: UPDATE store SET open = 1 WHERE region = :candidate',
      'What-if option South: none',
      'What-if objective: SELECT sum(qty * price) FROM sales',
      'What-if direction: minimize',
    ]);
    expect(result).toEqual({
      ok: true,
      mapping: {
        factors: [
          { name: 'demand', values: [{ value: 'low', change: 'UPDATE sales SET qty = qty * 0.8' }, { value: 'high', change: 'UPDATE sales SET qty = qty * 1.2' }] },
          { name: 'price', values: [{ value: 'steady', change: null }, { value: 'up', change: 'UPDATE sales SET price = price + 1' }] },
        ],
        everyOption: { change: 'UPDATE store SET open = 1 WHERE region = :candidate' },
        perOption: [{ option: 'south', change: null }],
        objective: 'SELECT sum(qty * price) FROM sales',
        direction: 'minimize',
      },
    });
    const mapping = (result as { mapping: WhatIfMapping }).mapping;
    // An option's own line wins over the line for every option.
    expect(optionChange(mapping, 'north')).toEqual({ change: 'UPDATE store SET open = 1 WHERE region = :candidate' });
    expect(optionChange(mapping, 'south')).toEqual({ change: null });
  });

  it('is absent when the question has no what-if line', () => {
    expect(read([])).toEqual({ ok: true, mapping: null });
  });

  it('names every unusable line by its number', () => {
    expect(
      problems([
        'What-if demnd = low: UPDATE sales SET qty = 0',
        'What-if demand = low UPDATE sales SET qty = 0',
        'What-if option west: none',
        'What-if option: UPDATE store SET open = 1',
        'What-if direction: upward',
        'What-if objective:',
        'What-if weather: none',
      ]),
    ).toEqual([
      'line 4: "demnd" is not one of the unknowns (demand; price)',
      'line 5: "What-if demand = low UPDATE sales SET qty = 0" has no ":" (write "What-if <unknown> = <value>: <change>", "What-if option: <change>", "What-if objective: <query>")',
      'line 6: "west" is not one of the options (north; south)',
      'line 7: the change for every option must name :candidate (on DuckDB, PostgreSQL or MySQL data $candidate), which is bound to each option\'s name; for changes that differ otherwise, write one "What-if option <name>:" line per option',
      'line 8: the direction is "maximize" or "minimize", not "upward"',
      'line 9: nothing after the ":" (a change, a query, or "none" for no change)',
      'line 10: "What-if weather" is none of "<unknown> = <value>", "option", "option <name>", "objective", "direction"',
      'no "What-if objective: <query>" line: the exact outcomes need a query that returns one number',
      'no unknown or option is mapped to a change',
    ]);
  });

  it('refuses twice-mapped values, a lone value, a second objective, and an objective of "none"', () => {
    expect(
      problems([
        'What-if demand = low: UPDATE sales SET qty = 1',
        'What-if demand = LOW: UPDATE sales SET qty = 2',
        'What-if objective: SELECT 1',
        'What-if objective: SELECT 2',
        'What-if option north: none',
        'What-if option north: none',
      ]),
    ).toEqual(['line 5: "demand" = "LOW" is mapped twice', 'line 7: a second objective (give one)', 'line 9: a second change for option "north"', '"demand" has one mapped value; map each value it can take (at least two)']);
    expect(problems(['What-if objective: none', 'What-if option north: none'])).toEqual(['line 4: the objective must be a query returning one number, not "none"', 'no "What-if objective: <query>" line: the exact outcomes need a query that returns one number']);
  });

  it('matches an option named with quotes, an apostrophe and non-Latin letters on its own line; a colon in a name reads as the end of the head', () => {
    const odd = 'Zoë\'s "Süd" 北区';
    const read = readWhatIfMapping(`Options: north; ${odd}\nWhat-if option zoë's "süd" 北区: UPDATE store SET open = 1 WHERE region = 'south'\nWhat-if objective: SELECT 1`, { unknowns: null, options: ['north', odd] });
    expect(read.ok && read.mapping?.perOption).toEqual([{ option: odd, change: "UPDATE store SET open = 1 WHERE region = 'south'" }]);
    // "Plan B: grow" cannot be named on an option line (its colon ends the head): said, not guessed.
    expect(readWhatIfMapping('What-if option Plan B: grow: none\nWhat-if objective: SELECT 1', { unknowns: null, options: ['Plan B: grow'] })).toEqual({
      ok: false,
      problems: ['line 1: the option "Plan B: grow" holds a ":", which ends a what-if line\'s head, so it cannot have a line of its own; map it with "What-if option: <change naming :candidate>"', 'no unknown or option is mapped to a change'],
    });
  });

  it('asks to list the unknowns first when the question has no Unknowns line', () => {
    expect(readWhatIfMapping('Options: a; b\nWhat-if demand = low: none\nWhat-if demand = high: none\nWhat-if objective: SELECT 1', { unknowns: null, options: ['a', 'b'] })).toEqual({
      ok: false,
      problems: ['line 2: "demand" is not one of the unknowns (list them first: "Unknowns: a; b")', 'line 3: "demand" is not one of the unknowns (list them first: "Unknowns: a; b")', 'no unknown or option is mapped to a change'],
    });
  });
});

describe('mapped values are the forecast’s values', () => {
  const factors = frameFactors(['north', 'south'], ['demand'], new Map([['demand', ['low', 'high']]]));

  it('tells the model the values and asks only for their likelihoods; unmapped prompts are unchanged', () => {
    const text = String(forecastMessages('ctx', 'goal', factors)[1]?.content);
    expect(text).toContain('For these unknowns the outcomes are already set: list exactly these outcomes, spelled as given, each with its likelihood, instead of naming outcomes of your own:\n- demand: low; high\n');
    expect(String(forecastMessages('ctx', 'goal', frameFactors(['north', 'south'], ['demand']))[1]?.content)).not.toContain('already set');
  });

  it('takes the mapped values in the analyst’s order and spelling, and refuses others', () => {
    const answer = (values: string[]): string => JSON.stringify({ factors: [{ name: 'demand', values: values.map((value) => ({ value, likelihood: 'likely' })) }, ...['north', 'south'].map((option) => ({ name: `how ${option} turns out`, values: ['a', 'b', 'c'].map((value) => ({ value, likelihood: 'likely' })) }))] });
    const parsed = parseForecast(answer(['HIGH', 'Low']), factors);
    expect(parsed.ok && parsed.value[0]).toEqual({ name: 'demand', scope: { kind: 'shared' }, fixedValues: ['low', 'high'], values: [{ value: 'low', likelihood: 'likely' }, { value: 'high', likelihood: 'likely' }] });
    expect(parseForecast(answer(['low', 'medium', 'high']), factors)).toEqual({ ok: false, problems: ['"demand" must list exactly the outcomes "low", "high"; not asked for "medium"'] });
    expect(parseForecast(answer(['low']), factors)).toEqual({ ok: false, problems: ['"demand" must list exactly the outcomes "low", "high"; missing "high"'] });
  });

  it('refuses an analyst edit that gives a mapped unknown a value of its own', () => {
    const beliefs = [normaliseFactor({ name: 'demand', scope: { kind: 'shared' }, fixedValues: ['low', 'high'], values: [{ value: 'low', likelihood: 'likely' }, { value: 'high', likelihood: 'likely' }] })];
    expect(readForecastLines(['demand | medium | likely'], beliefs)).toEqual({ ok: false, problems: ['line 1: "demand" is mapped to what-if changes, so its values are "low", "high"; "medium" is not one of them'] });
    const edited = readForecastLines(['demand | low | very likely', 'demand | high | unlikely'], beliefs);
    expect(edited.ok && edited.factors[0]?.fixedValues).toEqual(['low', 'high']);
  });
});

describe('planning the exact outcomes', () => {
  const mapping: WhatIfMapping = {
    factors: [{ name: 'demand', values: [{ value: 'low', change: 'UPDATE s SET q = 1' }, { value: 'high', change: null }] }],
    everyOption: null,
    perOption: [{ option: 'north', change: 'UPDATE s SET r = 1' }],
    objective: 'SELECT 1',
    direction: 'maximize',
  };
  const beliefs = [
    normaliseFactor({ name: 'demand', scope: { kind: 'shared' }, values: [{ value: 'low', likelihood: 'likely' }, { value: 'high', likelihood: 'very unlikely' }, { value: 'odd', likelihood: 'very unlikely' }] }),
    normaliseFactor({ name: 'how north turns out', scope: { kind: 'action', action: 'north' }, values: [{ value: 'a', likelihood: 'likely' }] }),
  ];

  it('deduplicates futures on the unknowns, marks what is not computable, and applies changes in order', () => {
    const plan = planExactOutcomes(mapping, beliefs, [[0, 0], [1, 0], [0, 0], [2, 0]], ['north', 'south']);
    expect(plan.changes).toEqual([
      { label: '"demand" = "low"', text: 'UPDATE s SET q = 1' },
      { label: 'the change of option "north"', text: 'UPDATE s SET r = 1' },
    ]);
    expect(plan.futures.map((future) => [future.text, future.draws, future.problem])).toEqual([
      ['demand = low', 2, null],
      ['demand = high', 1, null],
      ['demand = odd', 1, '"demand" = "odd" has no what-if change'],
    ]);
    expect(plan.optionProblems).toEqual([null, 'option "south" has no what-if change']);
    expect(plan.evaluations).toEqual([
      { future: 0, action: 0, steps: [0, 1], candidate: 'north' },
      { future: 1, action: 0, steps: [1], candidate: 'north' },
    ]);
  });

  it('caps whole futures, most probable first, and says so', () => {
    const plan = planExactOutcomes(mapping, beliefs, [[1, 0], [0, 0]], ['north', 'south'], 1);
    expect(plan.evaluations).toEqual([{ future: 0, action: 0, steps: [0, 1], candidate: 'north' }]);
    expect(plan.overCap).toBe(1);
    const summary = summariseExactOutcomes(plan, [{ before: 3, after: 10 }], { mapping, actions: ['north', 'south'], decision: 'north', maxEvaluations: 1 });
    expect(summary.scenarios.map((scenario) => [scenario.future, scenario.action, scenario.status, scenario.objective])).toEqual([
      ['demand = low', 'north', 'computed', 10],
      ['demand = low', 'south', 'not computable', null],
      ['demand = high', 'north', 'over the cap', null],
      ['demand = high', 'south', 'not computable', null],
    ]);
    // likely 5, very unlikely 1 and 1: p(low) = 5/7.
    expect(summary.rows[0]).toEqual({ action: 'north', expected: 10, coverage: 5 / 7, computed: 1 });
    expect(summary.capped).toBe('Capped: 1 sandbox evaluations made, 1 more left out (the cap is 1 distinct future × option runs); the least probable futures are marked "over the cap" and the expected objectives cover less of the forecast.');
    // South has no exact expected objective, so the decision is not compared.
    expect(summary.agrees).toBeNull();
    expect(summary.baseline).toBe(3);
  });

  it('keeps a future that failed on its data apart: failed with its message, the rest computed, not compared', () => {
    const both: WhatIfMapping = { ...mapping, everyOption: { change: 'UPDATE s SET open = 1 WHERE r = :candidate' }, perOption: [] };
    const plan = planExactOutcomes(both, beliefs.slice(0, 1), [[0], [1]], ['north', 'south']);
    const failure = { failed: '"demand" = "low" for candidate south: SQLite: CHECK constraint failed: q < 2' };
    const summary = summariseExactOutcomes(plan, [failure, { before: 3, after: 7 }, { before: 3, after: 4 }, { before: 3, after: 6 }], { mapping: both, actions: ['north', 'south'], decision: 'north', maxEvaluations: 200 });
    expect(summary.scenarios.map((scenario) => [scenario.future, scenario.action, scenario.status, scenario.objective, scenario.reason])).toEqual([
      ['demand = low', 'north', 'failed', null, failure.failed],
      ['demand = low', 'south', 'computed', 7, null],
      ['demand = high', 'north', 'computed', 4, null],
      ['demand = high', 'south', 'computed', 6, null],
    ]);
    // North is scored on "high" alone, south on both: not the same futures, so no verdict; the baseline is the first measured.
    expect(summary.rows.map((row) => row.computed)).toEqual([1, 2]);
    expect(summary.agrees).toBeNull();
    expect(summary.baseline).toBe(3);
    expect(exactNotComparedReason(summary)).toBe('1 future × option failed in the sandbox, so the options are not weighed over the same futures');
  });
});
