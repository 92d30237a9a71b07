import { useMemo, useRef, useState } from 'react';
import {
  flexRender,
  getCoreRowModel,
  getSortedRowModel,
  useReactTable,
  type ColumnDef,
  type SortingFn,
  type SortingState,
} from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { CellValue, QueryDisplay, QueryResult } from '../../src-main/contract';
import { downloadCsv, toTsv } from './export';
import { useWorkbench } from '../ui/store-context';
import { ExportAllRows } from './ExportAllRows';
import { columnLabel } from './column-label';
import { columnNumberFormat } from './format-cell';
import { columnWidth, type ShownCell } from './column-width';
import { ResultChart } from './ResultChart';
import { useScrollable } from '../ui/use-scrollable';

type Row = CellValue[];

const rowHeight = 26;
/** The grid starts at most this tall; the analyst can drag it taller (or shorter). */
const maxBodyHeight = 360;
/** The values a column's decimal display is chosen from: the grid holds a 5,000-row preview at most. */
const maxScannedRows = 5000;

/** Nulls last in both directions; numbers by value; everything else as text, naturally. */
const compareCells: SortingFn<Row> = (left, right, columnId) => {
  const a = left.getValue<CellValue>(columnId);
  const b = right.getValue<CellValue>(columnId);
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true });
};

/**
 * A sortable, virtualized grid: only the visible rows are in the DOM, however many there are.
 * A query cell's grid (`exportCellId`) also exports the whole result, which the grid may hold
 * only a preview of; every grid exports the rows it shows.
 */
export function ResultGrid({
  result,
  fileName,
  exportCellId,
  display: keptDisplay,
  onDisplayChange,
}: {
  result: QueryResult;
  fileName: string;
  exportCellId?: string;
  /** A query cell's own table-or-chart choice and chart settings; other grids keep theirs for as long as they are shown. */
  display?: QueryDisplay | undefined;
  onDisplayChange?(display: QueryDisplay): void;
}) {
  const [sorting, setSorting] = useState<SortingState>([]);
  const [localDisplay, setLocalDisplay] = useState<QueryDisplay>({ view: 'table' });
  const display = onDisplayChange ? (keptDisplay ?? { view: 'table' }) : localDisplay;
  const setDisplay = onDisplayChange ?? setLocalDisplay;
  const view = display.view;
  const setView = (next: QueryDisplay['view']): void => setDisplay({ ...display, view: next });
  const scroller = useRef<HTMLDivElement>(null);

  const columns = useMemo<ColumnDef<Row>[]>(
    () =>
      result.columns.map((column, index) => {
        // One decimal display for the column, from the values the grid holds (a preview at most).
        const formatNumber = columnNumberFormat(column.name, result.rows.slice(0, maxScannedRows).map((row) => row[index]));
        const header = columnLabel(column.name, index);
        return {
          id: `c${index}`,
          header,
          accessorFn: (row: Row) => row[index] ?? null,
          sortingFn: compareCells,
          size: columnWidth(header, shownCells(result.rows, index, formatNumber)),
          meta: { numeric: isNumericColumn(result.rows, index) },
          cell: (info) => <CellText value={info.getValue<CellValue>()} formatNumber={formatNumber} />,
        };
      }),
    [result],
  );
  // TanStack Table returns fresh functions each render by design; the React Compiler skips it.
  // eslint-disable-next-line react-hooks/incompatible-library
  const table = useReactTable({
    data: result.rows,
    columns,
    state: { sorting },
    onSortingChange: setSorting,
    columnResizeMode: 'onChange',
    enableColumnResizing: true,
    // Ascending on the first click for every column (TanStack would start numbers descending).
    sortDescFirst: false,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
  });
  const rows = table.getRowModel().rows;
  // The grid sorts what it holds; when that is only the first rows of the result, say so.
  const sortedPart = sorting.length > 0 && result.rows.length < result.rowCount;
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => rowHeight,
    overscan: 12,
  });
  const totalWidth = table.getTotalSize() + 48;
  // Copy and CSV take the rows in the order the grid shows them.
  const visible = (): Pick<QueryResult, 'columns' | 'rows'> => ({ columns: result.columns, rows: rows.map((row) => row.original) });
  const notify = useWorkbench((state) => state.notify);
  const reportError = useWorkbench((state) => state.reportError);
  // Says what reached the clipboard, or why nothing did (a browser may refuse it), rather than failing silently.
  const copyShown = () => {
    const shown = visible();
    navigator.clipboard.writeText(toTsv(shown)).then(
      () => notify({ tone: 'info', message: `Copied ${shown.rows.length.toLocaleString()} row${shown.rows.length === 1 ? '' : 's'} as tab-separated text` }),
      (error: unknown) => reportError(error, 'Could not copy the rows'),
    );
  };
  const initialHeight = Math.min(maxBodyHeight, (rows.length + 1) * rowHeight + 4);
  // A grid wider or taller than its box is a tab stop, so the keyboard can scroll it.
  const scrollable = useScrollable(scroller, view === 'chart');

  return (
    <div className="result">
      <div className="result-toolbar">
        <span className="result-summary" data-testid="result-summary">
          {result.rowCount.toLocaleString()} row{result.rowCount === 1 ? '' : 's'} · {formatElapsed(result.elapsedMs)}
        </span>
        <span className="spacer" />
        <button className="ghost small" data-testid="toggle-chart" aria-pressed={view === 'chart'} onClick={() => setView(view === 'table' ? 'chart' : 'table')}>
          {view === 'table' ? 'Chart' : 'Table'}
        </button>
        <button className="ghost small" data-testid="copy-shown-rows" onClick={copyShown} title="Copy the rows the grid shows, in its order, as tab-separated text">
          Copy
        </button>
        <button className="ghost small" onClick={() => downloadCsv(visible(), fileName)} title="Export the rows the grid shows, in its order, as CSV">
          {exportCellId ? 'Export shown rows' : 'CSV'}
        </button>
        {exportCellId && <ExportAllRows cellId={exportCellId} />}
      </div>
      {/* A row of their own under the buttons: a long note wraps there, in full, instead of pushing the buttons onto a second line. */}
      {(result.preview || result.truncated || sortedPart) && (
        <div className="result-notes">
          {result.preview && (
            <span className="result-truncated" data-testid="result-preview">
              {result.preview.note}
            </span>
          )}
          {result.truncated && (
            <span className="result-truncated" data-testid="result-truncated">
              Truncated at {result.rowCount} rows — raise the row cap to see more
            </span>
          )}
          {sortedPart && (
            <span className="result-truncated" data-testid="result-sorted-part">
              Sorted within the {result.rows.length.toLocaleString()} rows kept, not all {result.rowCount.toLocaleString()}: add ORDER BY to the query to sort them all
            </span>
          )}
        </div>
      )}
      {view === 'chart' && (
        <ResultChart result={result} rows={rows.map((row) => row.original)} settings={display.chart} onSettingsChange={(chart) => setDisplay({ ...display, chart })} />
      )}
      <div
        className="grid-scroller"
        ref={scroller}
        hidden={view === 'chart'}
        style={{ height: result.rowCount === 0 ? undefined : initialHeight }}
        data-testid="result-grid"
        {...(scrollable ? { tabIndex: 0, role: 'region', 'aria-label': `${result.rowCount.toLocaleString()} result rows (scroll with the arrow keys)` } : {})}
      >
        <div className="grid" role="table" style={{ width: totalWidth }}>
          <div className="grid-header" role="rowgroup">
            {table.getHeaderGroups().map((group) => (
              <div className="grid-row" role="row" key={group.id}>
                <div className="grid-cell grid-index" role="columnheader">
                  #
                </div>
                {group.headers.map((header) => {
                  const sorted = header.column.getIsSorted();
                  return (
                    <div
                      key={header.id}
                      role="columnheader"
                      aria-sort={sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : 'none'}
                      className={`grid-cell grid-heading${isNumeric(header.column.columnDef) ? ' numeric' : ''}`}
                      style={{ width: header.getSize() }}
                      onClick={header.column.getToggleSortingHandler()}
                      title={`Sort ${result.rows.length < result.rowCount ? `the ${result.rows.length.toLocaleString()} rows kept ` : ''}by ${String(header.column.columnDef.header)}`}
                    >
                      {flexRender(header.column.columnDef.header, header.getContext())}
                      <span className="sort-mark">{sorted === 'asc' ? '▲' : sorted === 'desc' ? '▼' : ''}</span>
                      <span
                        className={`column-resizer${header.column.getIsResizing() ? ' resizing' : ''}`}
                        data-testid="column-resizer"
                        aria-hidden="true"
                        onMouseDown={header.getResizeHandler()}
                        onTouchStart={header.getResizeHandler()}
                        onClick={(event) => event.stopPropagation()}
                        onDoubleClick={() => header.column.resetSize()}
                      />
                    </div>
                  );
                })}
              </div>
            ))}
          </div>
          <div role="rowgroup" style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {virtualizer.getVirtualItems().map((item) => {
              const row = rows[item.index];
              if (!row) return null;
              return (
                <div
                  className="grid-row"
                  role="row"
                  key={row.id}
                  style={{ position: 'absolute', top: 0, transform: `translateY(${item.start}px)`, height: rowHeight }}
                >
                  <div className="grid-cell grid-index" role="cell">
                    {item.index + 1}
                  </div>
                  {row.getVisibleCells().map((cell) => (
                    <div
                      className={`grid-cell${isNumeric(cell.column.columnDef) ? ' numeric' : ''}`}
                      role="cell"
                      key={cell.id}
                      style={{ width: cell.column.getSize() }}
                    >
                      {flexRender(cell.column.columnDef.cell, cell.getContext())}
                    </div>
                  ))}
                </div>
              );
            })}
          </div>
        </div>
        {result.rowCount === 0 && <div className="grid-empty">No rows</div>}
      </div>
    </div>
  );
}

function CellText({ value, formatNumber }: { value: CellValue; formatNumber: (value: number) => string }) {
  if (value === null) return <span className="null">NULL</span>;
  if (typeof value === 'number') {
    const shown = formatNumber(value);
    return (
      <span className="number" title={shown === String(value) ? undefined : String(value)}>
        {shown}
      </span>
    );
  }
  return <span title={String(value).length > 40 ? String(value) : undefined}>{String(value)}</span>;
}

/** Numbers read best right-aligned; a column is numeric when every sampled value is. */
function isNumericColumn(rows: Row[], index: number): boolean {
  const sample = rows.slice(0, 200).map((row) => row[index] ?? null).filter((value) => value !== null);
  return sample.length > 0 && sample.every((value) => typeof value === 'number');
}

function isNumeric(column: ColumnDef<Row>): boolean {
  return (column.meta as { numeric?: boolean } | undefined)?.numeric === true;
}

/** What the first rows of a column show, as the grid writes them (grouped numbers are longer than their digits). */
function* shownCells(rows: Row[], index: number, formatNumber: (value: number) => string): Iterable<ShownCell> {
  for (const row of rows.slice(0, 200)) {
    const value = row[index] ?? null;
    yield typeof value === 'number' ? { text: formatNumber(value), number: true } : { text: value === null ? 'NULL' : String(value), number: false };
  }
}

function formatElapsed(ms: number): string {
  return ms < 1000 ? `${Math.max(1, Math.round(ms))} ms` : `${(ms / 1000).toFixed(2)} s`;
}
