/** One line of a plan diff: a step kept, added or removed. */
export interface DiffLine {
  op: 'same' | 'added' | 'removed';
  text: string;
}

/**
 * The difference between two plans, step by step (longest common subsequence, so a step that
 * moved shows as removed and added). Plans are a handful of steps, so the quadratic table is fine.
 */
export function diffSteps(before: readonly string[], after: readonly string[]): DiffLine[] {
  const rows = before.length;
  const columns = after.length;
  const common: number[][] = Array.from({ length: rows + 1 }, () => new Array<number>(columns + 1).fill(0));
  const at = (row: number, column: number): number => common[row]?.[column] ?? 0;
  for (let row = rows - 1; row >= 0; row--) {
    for (let column = columns - 1; column >= 0; column--) {
      (common[row] as number[])[column] = before[row] === after[column] ? at(row + 1, column + 1) + 1 : Math.max(at(row + 1, column), at(row, column + 1));
    }
  }
  const lines: DiffLine[] = [];
  let row = 0;
  let column = 0;
  while (row < rows || column < columns) {
    if (row < rows && column < columns && before[row] === after[column]) {
      lines.push({ op: 'same', text: before[row] as string });
      row++;
      column++;
    } else if (row < rows && (column >= columns || at(row + 1, column) >= at(row, column + 1))) {
      // Removals first, as diffs are read: what went, then what replaced it.
      lines.push({ op: 'removed', text: before[row] as string });
      row++;
    } else {
      lines.push({ op: 'added', text: after[column] as string });
      column++;
    }
  }
  return lines;
}
