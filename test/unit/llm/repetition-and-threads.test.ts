import { describe, expect, it } from 'vitest';
import { toolNamed, toolSpecFor } from '../../../src-main/engine/tools/registry';
import { grammarLimitsFor } from '../../../src-main/llm/local/grammar-schema';
import { repeatedTail } from '../../../src-main/llm/local/repetition';
import { candidateThreadCounts, fastestCount, rateCallsForMeasuring } from '../../../src-main/llm/local/thread-choice';

describe('a reply that degenerates into repetition', () => {
  it('is caught once one short unit repeats over and over at its end', () => {
    expect(repeatedTail(`{"tool": "plan", "arguments": {"steps": ["${'1.'.repeat(16)}`)).toBe('1.');
    expect(repeatedTail(`{"query": "SELECT ${'0'.repeat(32)}`)).toBe('0');
    expect(repeatedTail(`["a", ${'"x", '.repeat(12)}`)).toBe('"x", ');
    // A list item written over and over (a plan seen under load).
    expect(repeatedTail(`{"steps": ["Find the flows",${'\n  "baltic_sea_2022",'.repeat(6)}`)).toBe('\n  "baltic_sea_2022",');
  });

  it('is not caught in ordinary replies, nor a short run', () => {
    expect(repeatedTail('{"tool": "query", "arguments": {"query": "SELECT region, SUM(revenue) FROM sales GROUP BY region ORDER BY 2 DESC LIMIT 1"}}')).toBeNull();
    expect(repeatedTail(`version ${'1.'.repeat(6)}0`)).toBeNull();
    expect(repeatedTail('1.1.1.1.1.1.1.1.')).toBeNull();
    expect(repeatedTail(`["${['krakow', 'lubeck', 'riga', 'danzig', 'novgorod', 'reval'].join('", "')}"]`)).toBeNull();
    expect(repeatedTail(`{"steps": [${'\n  "baltic_sea_2022",'.repeat(5)}`)).toBeNull();
    expect(repeatedTail('')).toBeNull();
  });
});

describe('threads auto', () => {
  it('tries 1, 2, 4, … and the full count, keeps the fastest, fewer threads on a tie', () => {
    expect(candidateThreadCounts(1)).toEqual([1]);
    expect(candidateThreadCounts(2)).toEqual([1, 2]);
    expect(candidateThreadCounts(6)).toEqual([1, 2, 4, 6]);
    expect(fastestCount({ 1: 28.4, 2: 6.5 })).toBe(1);
    expect(fastestCount({ 1: 17, 2: 33 })).toBe(2);
    expect(fastestCount({ 1: 20, 2: 20 })).toBe(1);
  });

  it('measures again when a rate falls below half or rises above one and a half times the rate at the choice', () => {
    expect(rateCallsForMeasuring(12, 30)).toBe(true);
    expect(rateCallsForMeasuring(50, 30)).toBe(true);
    expect(rateCallsForMeasuring(25, 30)).toBe(false);
  });
});

describe('grammar limits from the tool schema', () => {
  it("share the token budget among a schema's free strings: a query may use most of it, a plan's steps each a part", () => {
    const query = grammarLimitsFor(1024, toolSpecFor(toolNamed('query'), 'SQLite').parameters);
    const plan = grammarLimitsFor(1024, toolSpecFor(toolNamed('plan'), 'SQLite').parameters);
    const unknown = grammarLimitsFor(1024);
    expect(query.maxStringLength).toBeGreaterThan(unknown.maxStringLength);
    expect(plan.maxStringLength).toBeLessThan(unknown.maxStringLength);
    // The whole plan still fits the budget: items × length at three characters a token.
    expect((plan.maxArrayItems * plan.maxStringLength) / 3).toBeLessThanOrEqual(1024);
  });
});
