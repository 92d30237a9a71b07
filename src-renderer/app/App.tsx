import { useEffect, useRef, useState, type CSSProperties, type MouseEvent } from 'react';
import type { WorkbenchClient } from '../../src-main/contract';
import { BenchmarksView } from '../benchmarks/BenchmarksView';
import { TrashView } from '../trash/TrashView';
import { SearchView } from '../search/SearchView';
import { HistoryView } from '../search/HistoryView';
import { NotebookView } from '../notebook/NotebookView';
import { PlaybooksView } from '../playbooks/PlaybooksView';
import { ConnectionsPanel } from '../sidebar/ConnectionsPanel';
import { ModelPanel } from '../sidebar/ModelPanel';
import { NotebookList } from '../sidebar/NotebookList';
import { Toasts } from '../ui/Toasts';
import { ExportDialog } from '../reports/ExportDialog';
import { CommandPalette } from '../commands/CommandPalette';
import { installCommandKeys } from '../commands/keyboard';
import { workbenchCommands } from '../commands/workbench-commands';
import { useWorkbench, useWorkbenchStore } from '../ui/store-context';
import { applyTheme } from './theme';
import type { ThemeChoice } from '../state/theme-choice';
import { SidebarResizer, useSidebarWidth } from './SidebarResizer';

/** The window: sidebar (notebooks, connections, schema) beside the open notebook. */
export function App({ client }: { client: WorkbenchClient }) {
  const store = useWorkbenchStore();
  const transport = useWorkbench((state) => state.transport);
  const loadNotebooks = useWorkbench((state) => state.loadNotebooks);
  const loadConnections = useWorkbench((state) => state.loadConnections);
  const openNotebook = useWorkbench((state) => state.openNotebook);
  const flushEdits = useWorkbench((state) => state.flushEdits);
  const hasUnsaved = useWorkbench((state) => Object.values(state.saveStates).some((value) => value !== 'saved'));
  const reportError = useWorkbench((state) => state.reportError);
  const loadActiveRuns = useWorkbench((state) => state.loadActiveRuns);
  const [info, setInfo] = useState<{ directory: string; transport: 'ipc' | 'websocket' } | null>(null);
  const view = useWorkbench((state) => state.mainView);
  const setView = useWorkbench((state) => state.setMainView);
  const openHistory = useWorkbench((state) => state.openHistory);
  const currentNotebookId = useWorkbench((state) => state.currentNotebookId);

  // Opening another notebook (from the list, or a benchmark question) shows it.
  const shownNotebookId = useRef(currentNotebookId);
  useEffect(() => {
    if (shownNotebookId.current === currentNotebookId) return;
    shownNotebookId.current = currentNotebookId;
    setView('notebook');
  }, [currentNotebookId, setView]);

  useEffect(() => {
    const start = async (): Promise<void> => {
      setInfo(await client.invoke('workspace/info', {}));
      await loadConnections();
      await loadNotebooks();
      await loadActiveRuns();
    };
    start()
      .then(() => {
        const { notebooks } = store.getState();
        const last = window.localStorage.getItem('dwb:last-notebook');
        const target = notebooks.find((notebook) => notebook.id === last) ?? notebooks[0];
        if (target) return openNotebook(target.id);
        return undefined;
      })
      .catch((error: unknown) => reportError(error, 'Could not load the workspace'));
    const unsubscribe = client.on('connections-change', () => void loadConnections());
    return unsubscribe;
  }, [client, store, loadConnections, loadNotebooks, loadActiveRuns, openNotebook, reportError]);

  useEffect(() => installCommandKeys(store, workbenchCommands), [store]);

  const [sidebarWidth, setSidebarWidth] = useSidebarWidth();
  const theme = useWorkbench((state) => state.theme);
  const setTheme = useWorkbench((state) => state.setTheme);
  useEffect(() => applyTheme(theme), [theme]);

  useEffect(() => {
    const onBeforeUnload = (event: BeforeUnloadEvent): void => {
      void flushEdits();
      if (hasUnsaved) event.preventDefault();
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [flushEdits, hasUnsaved]);

  return (
    <div className="app" style={{ '--sidebar-width': `${sidebarWidth}px` } as CSSProperties}>
      <a className="skip-link" href="#main" data-testid="skip-link" onClick={skipToMain}>
        Skip to notebook
      </a>
      <aside className="sidebar">
        <div className="brand">
          <span className="logo">◆</span> Decision Workbench
        </div>
        <button className="ghost small sidebar-search" data-testid="open-search" title="Search every notebook (Ctrl+Shift+F)" onClick={() => setView('search')}>
          Search notebooks…
        </button>
        <NotebookList />
        <ModelPanel />
        <section className="panel" aria-label="Benchmarks">
          <header className="panel-header">
            <h2>Benchmarks</h2>
            <button className="ghost small" data-testid="open-benchmarks" onClick={() => setView(view === 'benchmarks' ? 'notebook' : 'benchmarks')}>
              {view === 'benchmarks' ? 'Close' : 'Open'}
            </button>
          </header>
        </section>
        <section className="panel" aria-label="History">
          <header className="panel-header">
            <h2>History</h2>
            <button className="ghost small" data-testid="open-history" aria-expanded={view === 'history'} onClick={() => (view === 'history' ? setView('notebook') : openHistory({ tab: 'queries' }))}>
              {view === 'history' ? 'Close' : 'Open'}
            </button>
          </header>
        </section>
        <section className="panel" aria-label="Trash">
          <header className="panel-header">
            <h2>Trash</h2>
            <button className="ghost small" data-testid="open-trash" aria-expanded={view === 'trash'} onClick={() => setView(view === 'trash' ? 'notebook' : 'trash')}>
              {view === 'trash' ? 'Close' : 'Open'}
            </button>
          </header>
        </section>
        <section className="panel" aria-label="Playbooks">
          <header className="panel-header">
            <h2>Playbooks</h2>
            <button className="ghost small" data-testid="open-playbooks" aria-expanded={view === 'playbooks'} onClick={() => setView(view === 'playbooks' ? 'notebook' : 'playbooks')}>
              {view === 'playbooks' ? 'Close' : 'Open'}
            </button>
          </header>
        </section>
        <ConnectionsPanel
          canBrowse={info?.transport === 'ipc'}
          browse={async () => (await client.invoke('dialog/open-file', { title: 'SQLite database', extensions: ['sqlite', 'sqlite3', 'db'] })).path}
        />
        <footer className="sidebar-footer">
          <label className="theme-choice">
            Theme
            <select aria-label="Theme" data-testid="theme-choice" value={theme} onChange={(event) => setTheme(event.target.value as ThemeChoice)}>
              <option value="system">Follow the system</option>
              <option value="light">Light</option>
              <option value="dark">Dark</option>
            </select>
          </label>
          <span className="workspace-path" title={info?.directory}>
            {info ? `Workspace: ${info.directory}` : ''}
          </span>
        </footer>
      </aside>
      <SidebarResizer width={sidebarWidth} onResize={setSidebarWidth} />
      <div className="main-column">
        {transport !== 'open' && (
          <div className="banner" role="status" data-testid="transport-banner">
            {transport === 'connecting' ? 'Connecting to the workbench…' : 'Disconnected from the workbench — reconnecting. Your edits are kept.'}
          </div>
        )}
        {view === 'search' ? (
          <SearchView client={client} />
        ) : view === 'history' ? (
          <HistoryView client={client} />
        ) : view === 'trash' ? (
          <TrashView client={client} />
        ) : view === 'benchmarks' ? (
          <BenchmarksView
            client={client}
            onOpenNotebook={(id) => {
              void loadNotebooks()
                .then(() => openNotebook(id))
                .then(() => setView('notebook'))
                .catch((error: unknown) => reportError(error, 'Could not open the notebook'));
            }}
          />
        ) : view === 'playbooks' ? (
          <PlaybooksView client={client} />
        ) : (
          <NotebookView />
        )}
      </div>
      <ExportDialog />
      <CommandPalette />
      <Toasts />
    </div>
  );
}

/** The skip link: focus moves to the view in front (every view is one `main`), past the sidebar. */
function skipToMain(event: MouseEvent<HTMLAnchorElement>): void {
  const main = event.currentTarget.ownerDocument.querySelector<HTMLElement>('.main-column main');
  if (!main) return;
  event.preventDefault();
  main.tabIndex = -1;
  main.focus();
  main.scrollIntoView({ block: 'start' });
}
