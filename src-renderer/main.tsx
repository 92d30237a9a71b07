import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { connectClient } from './api/client';
import { App } from './app/App';
import { StoreProvider } from './ui/store-context';
import { createWorkbenchStore, type WorkbenchStore } from './state/store';
import './styles.css';
import './theme-dark.css';

let store: WorkbenchStore | null = null;
const client = connectClient((state) => store?.getState().setTransport(state));
store = createWorkbenchStore(client);
const ready = store;
if (window.dwb) ready.getState().setTransport('open');

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <StoreProvider store={ready}>
      <App client={client} />
    </StoreProvider>
  </StrictMode>,
);
