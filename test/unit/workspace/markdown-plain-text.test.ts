import { describe, expect, it } from 'vitest';
import { markdownToPlainText } from '../../../src-main/workspace/markdown-plain-text';

describe('Markdown read as plain text (search snippets)', () => {
  it('keeps the words and drops the markup: headings, emphasis, links, images, lists, quotes', () => {
    expect(markdownToPlainText('## Findings\n\n- **Revenue** fell in [March](https://example.com/m) by `12%`\n> keep my_table_name as it is')).toBe(
      'Findings\nRevenue fell in March by 12%\nkeep my_table_name as it is',
    );
    expect(markdownToPlainText('***both*** and **bold _inside_** and ~~gone~~ ![a chart](c.png)')).toBe('both and bold inside and gone a chart');
    expect(markdownToPlainText('- [x] done\n- [ ] open\n1. first\n2) second')).toBe('done\nopen\nfirst\nsecond');
  });

  it('reads what a line-by-line reading got wrong: setext headings, reference links and their definitions, code spans with stars, escapes', () => {
    expect(markdownToPlainText('Quarterly result\n================\n\nSee [the report][r].\n\n[r]: https://example.com/report "Report"')).toBe('Quarterly result\nSee the report.');
    expect(markdownToPlainText('Run `SELECT **` then \\*not emphasis\\* and 2 * 3 * 4')).toBe('Run SELECT ** then *not emphasis* and 2 * 3 * 4');
    expect(markdownToPlainText('a link [with `code`](https://x.test "title") and <https://auto.test>')).toBe('a link with code and https://auto.test');
  });

  it('turns a table into its cells and a fenced block into its code; raw HTML stays the text it was', () => {
    expect(markdownToPlainText('| node | value |\n|---|---:|\n| **baltic** | 5.6 |')).toBe('node · value\nbaltic · 5.6');
    expect(markdownToPlainText('```sql\nSELECT *\nFROM t\n```\n\n---\n\n<b>bold?</b>')).toBe('SELECT *\nFROM t\n<b>bold?</b>');
  });

  it('returns text beyond the Markdown budget as it is (the notebook shows it verbatim too)', () => {
    const runaway = '*_'.repeat(3000);
    expect(markdownToPlainText(runaway)).toBe(runaway);
    expect(markdownToPlainText('')).toBe('');
  });
});
