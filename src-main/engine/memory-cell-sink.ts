import { defaultQuerySettings, type Cell, type CellOutput } from '../contract/notebook';
import type { CellSink, RunCellDraft } from './run-cells';

/** Cells kept in memory, in notebook order: how the CLI builds the notebook it writes out. */
export class MemoryCellSink implements CellSink {
  readonly cells: Cell[] = [];
  private counter = 0;

  constructor(
    private readonly notebookId: string,
    private readonly now: () => string = () => new Date().toISOString(),
  ) {}

  insert(draft: RunCellDraft, afterCellId: string | null): string {
    const id = `cell-${String(++this.counter).padStart(3, '0')}`;
    const at = this.now();
    const cell: Cell = { ...draft, id, notebookId: this.notebookId, settings: defaultQuerySettings, output: null, createdAt: at, updatedAt: at };
    const index = afterCellId === null ? 0 : this.cells.findIndex((existing) => existing.id === afterCellId) + 1;
    this.cells.splice(index, 0, cell);
    return id;
  }

  saveOutput(cellId: string, output: CellOutput): void {
    const cell = this.cells.find((existing) => existing.id === cellId);
    if (cell) cell.output = output;
  }

  rewrite(cellId: string, content: { source: string; data: Record<string, unknown> }): void {
    const cell = this.cells.find((existing) => existing.id === cellId);
    if (!cell) return;
    cell.source = content.source;
    cell.data = content.data as Cell['data'];
    cell.updatedAt = this.now();
  }
}
