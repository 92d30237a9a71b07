import { createContext, useContext, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { WorkbenchState, WorkbenchStore } from '../state/store';

const StoreContext = createContext<WorkbenchStore | null>(null);

export function StoreProvider({ store, children }: { store: WorkbenchStore; children: ReactNode }) {
  return <StoreContext.Provider value={store}>{children}</StoreContext.Provider>;
}

/** Reads from the workbench store; components re-render only when their selection changes. */
export function useWorkbench<T>(selector: (state: WorkbenchState) => T): T {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useWorkbench outside StoreProvider');
  return useStore(store, selector);
}

/** The store itself, for effects that read the latest state once without subscribing. */
export function useWorkbenchStore(): WorkbenchStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useWorkbenchStore outside StoreProvider');
  return store;
}
