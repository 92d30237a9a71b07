import type { TransportState } from '../api/client';
import type { SliceContext } from './store';
import { storeTheme, storedTheme, type ThemeChoice } from './theme-choice';

export interface Toast {
  id: number;
  message: string;
  tone: 'info' | 'error';
  /** e.g. Undo after a delete. */
  action?: { label: string; run: () => void };
  /**
   * The id of the deleted item the action brings back: the notice goes when that item is
   * restored some other way or deleted for good (see `dropUndo`).
   */
  restores?: string;
}

export type MainView = 'notebook' | 'benchmarks' | 'trash' | 'search' | 'playbooks' | 'history';

export interface UiSlice {
  transport: TransportState;
  toasts: Toast[];
  /** What the main column shows: the open notebook, the benchmarks, the trash, or search. */
  mainView: MainView;
  setMainView(view: MainView): void;
  /** Light, dark, or following the system (the default); remembered in this browser. */
  theme: ThemeChoice;
  setTheme(choice: ThemeChoice): void;
  /** The History view: the connection whose queries it lists (null: the first), or the runs of every notebook. */
  history: { tab: 'queries' | 'runs'; connectionId: string | null };
  openHistory(history: { tab: 'queries' | 'runs'; connectionId?: string | null }): void;
  /** The open notebook's run history panel. */
  runHistoryOpen: boolean;
  setRunHistoryOpen(open: boolean): void;
  /** The model settings dialog, opened from the sidebar or the palette. */
  modelSettingsOpen: boolean;
  setModelSettingsOpen(open: boolean): void;
  setTransport(state: TransportState): void;
  notify(toast: Omit<Toast, 'id'>): void;
  dismissToast(id: number): void;
  /** Reports a failed request as a toast; returns nothing so it can end a promise chain. */
  reportError(error: unknown, context: string): void;
}

let nextToastId = 1;
const toastLifetimeMs = 8000;

export function createUiSlice({ set, get }: SliceContext): UiSlice {
  return {
    transport: 'connecting',
    toasts: [],
    mainView: 'notebook',
    setMainView: (mainView) => set({ mainView }),
    theme: typeof window === 'undefined' ? 'system' : storedTheme(),
    setTheme: (theme) => {
      storeTheme(theme);
      set({ theme });
    },
    history: { tab: 'queries', connectionId: null },
    openHistory: ({ tab, connectionId }) => set({ mainView: 'history', history: { tab, connectionId: connectionId === undefined ? get().history.connectionId : connectionId } }),
    runHistoryOpen: false,
    setRunHistoryOpen: (open) => set({ runHistoryOpen: open }),
    modelSettingsOpen: false,
    setModelSettingsOpen: (open) => set({ modelSettingsOpen: open }),
    setTransport: (transport) => set({ transport }),
    notify: (toast) => {
      const id = nextToastId++;
      set({ toasts: [...get().toasts.slice(-3), { ...toast, id }] });
      setTimeout(() => get().dismissToast(id), toastLifetimeMs);
    },
    dismissToast: (id) => set({ toasts: get().toasts.filter((toast) => toast.id !== id) }),
    reportError: (error, context) => {
      const message = error instanceof Error ? error.message : String(error);
      get().notify({ tone: 'error', message: `${context}: ${message}` });
    },
  };
}
