import { useMemo } from 'react';
import { expandNeighboursQuery, graphOfResults, hasGraphColumns, type Cell, type Engine, type GraphNode, type QueryDisplay, type QueryResult } from '../../src-main/contract';
import { ResultGrid } from '../grid/ResultGrid';
import { ResultGraph } from '../grid/ResultGraph';
import { useWorkbench } from '../ui/store-context';

/** The origin an "Expand neighbours" cell carries, so its result is drawn in the graph it expands. */
export const expandOrigin = 'graph: expand neighbours';

/**
 * A query cell's result as a table, or, for a Cypher result with nodes, as a graph: the choice is
 * saved with the cell (its settings), so it stays after switching notebooks and reloading. The
 * graph also draws the results of the cells that expanded it.
 */
export function QueryResultView({
  cell,
  result,
  engine,
  fileName,
  display,
  onDisplayChange,
}: {
  cell: Cell;
  result: QueryResult;
  engine: Engine | undefined;
  /** The table's export name and its chart/table display, kept with the cell. */
  fileName: string;
  display: QueryDisplay | undefined;
  onDisplayChange: (next: QueryDisplay) => void;
}) {
  const cells = useWorkbench((state) => state.cells);
  const editCell = useWorkbench((state) => state.editCell);
  const addCell = useWorkbench((state) => state.addCell);
  const runCell = useWorkbench((state) => state.runCell);
  const reportError = useWorkbench((state) => state.reportError);

  const graphEngine = engine === 'neo4j' || engine === 'kuzu' ? engine : null;
  const offered = graphEngine !== null && hasGraphColumns(result);
  const expansions = useMemo(
    () =>
      cells.flatMap((other) =>
        other.provenance.derivedFrom === cell.id && other.provenance.origin === expandOrigin && other.output?.status === 'ok' ? [other.output.result] : [],
      ),
    [cells, cell.id],
  );
  const graph = useMemo(() => (offered ? graphOfResults([result, ...expansions]) : null), [offered, result, expansions]);
  const view = graph !== null && cell.settings.resultView === 'graph' ? 'graph' : 'table';

  const setView = (resultView: 'table' | 'graph'): void => editCell(cell.id, { settings: { ...cell.settings, resultView } });
  const expand = async (node: GraphNode): Promise<void> => {
    const source = graphEngine ? expandNeighboursQuery(graphEngine, node.id) : null;
    if (source === null) return;
    // Below the cell and its earlier expansions, so the analyst reads them in the order they were asked.
    const lastExpansion = [...cells].reverse().find((other) => other.provenance.derivedFrom === cell.id && other.provenance.origin === expandOrigin);
    const added = await addCell('query', {
      afterCellId: lastExpansion?.id ?? cell.id,
      connectionId: cell.connectionId,
      source,
      provenance: { derivedFrom: cell.id, origin: expandOrigin },
      settings: { resultView: 'graph' },
    });
    await runCell(added.id);
  };

  return (
    <>
      {graph !== null && (
        <div className="result-view-switch" role="group" aria-label="Show the result as">
          <button className="ghost small" data-testid="result-view-table" aria-pressed={view === 'table'} onClick={() => setView('table')}>
            Table
          </button>
          <button className="ghost small" data-testid="result-view-graph" aria-pressed={view === 'graph'} onClick={() => setView('graph')}>
            Graph
          </button>
        </div>
      )}
      {view === 'graph' && graph !== null ? (
        <ResultGraph
          graph={graph}
          caption={cell.settings.graphCaption}
          onCaptionChange={(graphCaption) => {
            const { graphCaption: _previous, ...rest } = cell.settings;
            editCell(cell.id, { settings: graphCaption === undefined ? rest : { ...rest, graphCaption } });
          }}
          onExpand={(node) => void expand(node).catch((error: unknown) => reportError(error, 'Could not expand the neighbours'))}
        />
      ) : (
        <ResultGrid result={result} fileName={fileName} exportCellId={cell.id} display={display} onDisplayChange={onDisplayChange} />
      )}
    </>
  );
}
