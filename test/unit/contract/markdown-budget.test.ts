import { describe, expect, it } from 'vitest';
import { markdownDelimiterBudget, withinMarkdownBudget } from '../../../src-main/contract/markdown-budget';

describe('the Markdown budget', () => {
  it('counts emphasis, strike-through and bracket characters, and nothing else', () => {
    expect(withinMarkdownBudget('*'.repeat(markdownDelimiterBudget))).toBe(true);
    expect(withinMarkdownBudget('*'.repeat(markdownDelimiterBudget + 1))).toBe(false);
    expect(withinMarkdownBudget('_['.repeat(markdownDelimiterBudget / 2) + ']')).toBe(false);
    expect(withinMarkdownBudget('~'.repeat(markdownDelimiterBudget + 1))).toBe(false);
    expect(withinMarkdownBudget('#>|`-+'.repeat(10_000))).toBe(true);
    expect(withinMarkdownBudget('')).toBe(true);
  });
});
