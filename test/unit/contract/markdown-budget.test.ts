import { describe, expect, it } from 'vitest';
import { markdownDelimiterBudget, markdownNestingBudget, withinMarkdownBudget } from '../../../src-main/contract/markdown-budget';

describe('the Markdown budget', () => {
  it('counts emphasis, strike-through and bracket characters, and nothing else', () => {
    expect(withinMarkdownBudget(`a${'*'.repeat(markdownDelimiterBudget)}`)).toBe(true);
    expect(withinMarkdownBudget(`a${'*'.repeat(markdownDelimiterBudget + 1)}`)).toBe(false);
    expect(withinMarkdownBudget('_['.repeat(markdownDelimiterBudget / 2) + ']')).toBe(false);
    expect(withinMarkdownBudget('~'.repeat(markdownDelimiterBudget + 1))).toBe(false);
    expect(withinMarkdownBudget('a*b_c[d]e~'.repeat(300))).toBe(true);
    expect(withinMarkdownBudget('#>|`-+'.repeat(10_000))).toBe(true);
    expect(withinMarkdownBudget('')).toBe(true);
  });

  it('bounds how deep quotes and lists nest, read from each line\'s leading markers and indentation', () => {
    expect(withinMarkdownBudget(`${'>'.repeat(markdownNestingBudget)}x`)).toBe(true);
    expect(withinMarkdownBudget(`${'>'.repeat(markdownNestingBudget + 1)}x`)).toBe(false);
    expect(withinMarkdownBudget(`${'- > '.repeat(60)}x`)).toBe(false);
    expect(withinMarkdownBudget(Array.from({ length: 150 }, (_, level) => `${'  '.repeat(level)}- a`).join('\n'))).toBe(false);
    expect(withinMarkdownBudget(`${'1. '.repeat(120)}x`)).toBe(false);
    // Text after the prefix does not count: comparisons, arrows, dates.
    expect(withinMarkdownBudget(`a ${'> b - c + d * 1. '.repeat(500)}`.replaceAll('*', 'x'))).toBe(true);
    expect(withinMarkdownBudget('- item\n  - nested\n    > quoted 2026-11-29 -> done')).toBe(true);
  });
});
