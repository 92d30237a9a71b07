import { describe, expect, it } from 'vitest';
import type { QuestionResult } from '../../../src-main/benchmark/question-result';
import { resultsHtml } from '../../../src-main/benchmark/results-html';
import { resultsMarkdown } from '../../../src-main/benchmark/results-markdown';
import { resultsTable } from '../../../src-main/benchmark/results-table';

const hostile = '<script>alert(1)</script> | **bold** [link](http://x)';

function result(id: string, overrides: Partial<QuestionResult>): QuestionResult {
  return {
    format: 'decision-workbench/benchmark-question',
    version: 1,
    id,
    scenario: 'locating',
    technique: 'planrag',
    db: 'rdb',
    dump: 'db/x.sql',
    questionsFile: '/q.json',
    status: 'answered',
    message: null,
    error: null,
    match: { raw: 'krakow', matched: 'krakow', rule: 'exact', alternatives: [] },
    simulator: { best: 'krakow', tied: ['krakow'], annotation: 'krakow', margin: 0.5, candidateCount: 3, rank: 1, notes: [] },
    correct: true,
    correctWithTies: true,
    flags: [],
    steps: 4,
    promptTokens: 1000,
    completionTokens: 100,
    totalTokens: 1100,
    wallMs: 2000,
    failure: { category: null, automatic: true, evidence: [] },
    decidedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

const results = [
  result('L1', {}),
  result('L2', { match: { raw: hostile, matched: null, rule: 'none', alternatives: [] }, correct: false, correctWithTies: false, steps: 2, promptTokens: 500, completionTokens: 50, failure: { category: 'CAN', automatic: true, evidence: [`the decision "${hostile}" is not one of the 3 candidates`] } }),
  result('L3', { status: 'step-limit', match: { raw: null, matched: null, rule: 'no-decision', alternatives: [] }, correct: false, correctWithTies: false, steps: 6, failure: { category: 'OTH', automatic: true, evidence: ['the run ended step-limit without a decision'] } }),
  result('L4', { simulator: { best: 'a', tied: ['a', 'b'], annotation: 'a', margin: 0, candidateCount: 3, rank: 1, notes: [] }, match: { raw: 'b', matched: 'b', rule: 'exact', alternatives: [] }, correct: false, correctWithTies: true, flags: ['tie'] }),
  result('B1', { scenario: 'building', technique: 'iterrag', db: 'gdb' }),
];

describe('the results table and its reports', () => {
  const table = resultsTable(results, () => '2026-01-01T00:00:00.000Z');

  it('sums each technique × scenario × database kind, flagged questions counted apart', () => {
    expect(table.rows.map((row) => [row.technique, row.scenario, row.db])).toEqual([
      ['iterrag', 'building', 'gdb'],
      ['planrag', 'locating', 'rdb'],
    ]);
    const planrag = table.rows[1];
    expect(planrag).toMatchObject({ questions: 4, correct: 1, correctWithTies: 2, flagged: 1, clearCorrect: 1, meanSteps: 4, promptTokens: 3500, completionTokens: 350, wallMs: 8000 });
    expect(planrag?.ended).toEqual({ answered: 3, 'step-limit': 1 });
    expect(planrag?.failures).toEqual({ CAN: 1, OTH: 1 });
  });

  it('escapes whatever the model answered, in Markdown and in HTML', () => {
    const markdown = resultsMarkdown(table);
    expect(markdown).not.toContain('<script>');
    expect(markdown).toContain('\\<script\\>alert(1)\\</script\\> \\| \\*\\*bold\\*\\* \\[link\\](http://x)');
    const html = resultsHtml(table);
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; | **bold**');
    expect(html).toContain("Content-Security-Policy\" content=\"default-src 'none'");
  });

  it('draws the three charts from the table', () => {
    const html = resultsHtml(table);
    // Accuracy: one exact bar and one ties-counted bar per row.
    expect(html.match(/<title>right \d+\/\d+<\/title>/g)).toEqual(['<title>right 1/1</title>', '<title>right 1/4</title>']);
    // Tokens: one bar group per question.
    expect(html.match(/<g><title>/g)).toHaveLength(results.length);
    // Where runs ended: a segment per status present in a row.
    expect(html).toContain('<title>step-limit: 1</title>');
    expect(html).toContain('<title>answered: 3</title>');
  });
});
