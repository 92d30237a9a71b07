import { useEffect, useState } from 'react';
import type { WorkbenchClient } from '../../src-main/contract';
import type { SearchHit } from '../../src-main/contract/search';
import { useWorkbench } from '../ui/store-context';

const pauseMs = 200;

/**
 * Text search across every notebook — queries, notes, questions, decisions — as you type;
 * choosing a hit opens its notebook with the cell selected (and scrolled to).
 */
export function SearchView({ client }: { client: WorkbenchClient }) {
  const reportError = useWorkbench((state) => state.reportError);
  const openNotebook = useWorkbench((state) => state.openNotebook);
  const currentNotebookId = useWorkbench((state) => state.currentNotebookId);
  const selectCell = useWorkbench((state) => state.selectCell);
  const setMainView = useWorkbench((state) => state.setMainView);
  const [text, setText] = useState('');
  const [found, setFound] = useState<{ text: string; hits: SearchHit[]; more: boolean } | null>(null);

  useEffect(() => {
    const wanted = text.trim();
    if (!wanted) return;
    let current = true;
    // Wait for a pause in the typing; a late answer to an older text never replaces a newer one.
    const timer = setTimeout(() => {
      client.invoke('search/cells', { text: wanted, limit: 50 }).then(
        (result) => current && setFound({ text: wanted, ...result }),
        (error: unknown) => reportError(error, 'Search failed'),
      );
    }, pauseMs);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [client, text, reportError]);

  const open = async (hit: SearchHit): Promise<void> => {
    try {
      if (hit.notebookId !== currentNotebookId) await openNotebook(hit.notebookId);
      setMainView('notebook');
      selectCell(hit.cellId);
    } catch (error) {
      reportError(error, 'Could not open the cell');
    }
  };

  const shown = text.trim() && found?.text === text.trim() ? found : null;
  return (
    <main className="notebook search-view" data-testid="search-view" aria-label="Search">
      <h1 className="notebook-title">Search</h1>
      <input
        className="search-input"
        type="search"
        autoFocus
        aria-label="Search all notebooks"
        placeholder="Text in queries, notes, questions and decisions of every notebook"
        value={text}
        onChange={(event) => setText(event.target.value)}
      />
      <p className="muted" role="status" data-testid="search-summary">
        {!text.trim() ? 'Type to search.' : !shown ? 'Searching…' : shown.hits.length === 0 ? 'No cell holds this text.' : `${shown.hits.length}${shown.more ? '+' : ''} ${shown.hits.length === 1 && !shown.more ? 'cell' : 'cells'}`}
      </p>
      {shown && shown.hits.length > 0 && (
        <ul className="search-hits">
          {shown.hits.map((hit) => (
            <li key={hit.cellId}>
              <button className="search-hit" data-testid="search-hit" onClick={() => void open(hit)}>
                <span className="search-where">
                  <span className={`badge kind-${hit.kind}`}>{hit.kind}</span> {hit.notebookTitle}
                </span>
                <span className="search-snippet">
                  {hit.snippet.slice(0, hit.match.start)}
                  <mark>{hit.snippet.slice(hit.match.start, hit.match.start + hit.match.length)}</mark>
                  {hit.snippet.slice(hit.match.start + hit.match.length)}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}
