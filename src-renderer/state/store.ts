import { createStore, type StoreApi } from 'zustand/vanilla';
import type { WorkbenchClient } from '../../src-main/contract';
import { createConnectionsSlice, type ConnectionsSlice } from './connections-slice';
import { createNotebookSlice, type NotebookSlice } from './notebook-slice';
import { createRunsSlice, type RunsSlice } from './runs-slice';
import { createExperimentsSlice, type ExperimentsSlice } from './experiments-slice';
import { createReportsSlice, type ReportsSlice } from './reports-slice';
import { createUiSlice, type UiSlice } from './ui-slice';
import { createLocalModelsSlice, type LocalModelsSlice } from './local-models-slice';
import { createCommandsSlice, type CommandsSlice } from './commands-slice';
import { createDocumentsSlice, type DocumentsSlice } from './documents-slice';
import { createResultExportsSlice, type ResultExportsSlice } from './result-exports-slice';

export type WorkbenchState = NotebookSlice & ConnectionsSlice & UiSlice & RunsSlice & ExperimentsSlice & ReportsSlice & LocalModelsSlice & CommandsSlice & DocumentsSlice & ResultExportsSlice;
export type WorkbenchStore = StoreApi<WorkbenchState>;

/** Everything a slice needs besides the store itself. */
export interface SliceContext {
  client: WorkbenchClient;
  set: StoreApi<WorkbenchState>['setState'];
  get: StoreApi<WorkbenchState>['getState'];
}

/** One store from slices; the client is injected so tests can give it any transport. */
export function createWorkbenchStore(client: WorkbenchClient): WorkbenchStore {
  return createStore<WorkbenchState>()((set, get) => {
    const context: SliceContext = { client, set, get };
    return {
      ...createUiSlice(context),
      ...createConnectionsSlice(context),
      ...createNotebookSlice(context),
      ...createRunsSlice(context),
      ...createExperimentsSlice(context),
      ...createReportsSlice(context),
      ...createLocalModelsSlice(context),
      ...createCommandsSlice(context),
      ...createDocumentsSlice(context),
      ...createResultExportsSlice(context),
    };
  });
}
