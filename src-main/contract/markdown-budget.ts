/**
 * How much Markdown markup a text may hold and still be rendered as Markdown, by the notebook
 * (react-markdown) and by the Markdown and Jupyter exports (reports/markdown-sanitized.ts), which
 * parse it with micromark. Its parse grows with the square of nested or unmatched emphasis and
 * bracket runs (8,000 nested `*_` pairs take 8 s, 16,000 closing brackets 2 s), and a model that
 * repeats itself can write them. A text over the budget is shown as it is, in monospace; at the
 * budget the worst such text parses in about 0.15 s.
 */
export const markdownDelimiterBudget = 2000;

/** Whether `text` holds at most `markdownDelimiterBudget` emphasis, strike-through and bracket characters. */
export function withinMarkdownBudget(text: string): boolean {
  let delimiters = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    // * _ [ ] ~
    if (code === 42 || code === 95 || code === 91 || code === 93 || code === 126) {
      delimiters += 1;
      if (delimiters > markdownDelimiterBudget) return false;
    }
  }
  return true;
}
