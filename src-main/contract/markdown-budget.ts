/**
 * How much Markdown markup a text may hold and still be rendered as Markdown, by the notebook
 * (react-markdown) and by the Markdown and Jupyter exports (reports/markdown-sanitized.ts), which
 * parse it with micromark. Its parse grows with the square of nested or unmatched emphasis and
 * bracket runs (8,000 nested `*_` pairs take 8 s, 16,000 closing brackets 2 s), and a model that
 * repeats itself can write them. A text over the budget is shown as it is, in monospace; at the
 * budget the worst such text parses in about 0.15 s.
 */
export const markdownDelimiterBudget = 2000;

/**
 * How deeply quotes and lists may nest: rendering recurses once per level, and react-markdown
 * runs out of stack at about a thousand (`- > - > …`), or takes seconds on lists nested by
 * indentation long before. Read from each line's leading markers and indentation, which every
 * open quote or list needs on its line: at most this many levels, and none of that cost.
 */
export const markdownNestingBudget = 100;

/** Whether `text` is within both budgets: few enough emphasis, strike-through and bracket characters, and no line nested too deep. */
export function withinMarkdownBudget(text: string): boolean {
  return withinDelimiterBudget(text) && text.split('\n').every((line) => nestingOf(line) <= markdownNestingBudget);
}

/** An upper bound on the quotes and lists a line is nested in: one per `>` or list marker before its text, one per two columns of indentation. */
function nestingOf(line: string): number {
  let levels = 0;
  for (let index = 0; index < line.length; index += 1) {
    const character = line[index] as string;
    if (character === '>' || character === '-' || character === '*' || character === '+') levels += 1;
    else if (character === ' ') levels += 0.5;
    else if (character === '\t') levels += 2;
    else if (/[0-9]/.test(character)) {
      const marker = /^[0-9]{1,9}[.)]/.exec(line.slice(index));
      if (!marker) break;
      levels += 1;
      index += marker[0].length - 1;
    } else break;
  }
  return levels;
}

function withinDelimiterBudget(text: string): boolean {
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
