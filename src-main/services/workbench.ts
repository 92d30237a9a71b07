import { createDellmaRefitService } from './dellma-refit-service';
import { join } from 'node:path';
import type { EventName, EventPayload, Method, Params, Result } from '../contract/api';
import { WorkbenchError } from '../contract/errors';
import { openAppDatabase, type AppDatabase } from '../workspace/app-database';
import { systemEnvironment, type Environment } from '../workspace/clock';
import { ConnectionStore } from '../workspace/connection-store';
import { NotebookStore } from '../workspace/notebook-store';
import { TrashStore } from '../workspace/trash-store';
import { installDemoOnce } from '../workspace/demo';
import { openConnector } from '../connectors/open-connector';
import { ConnectionPool } from './connection-pool';
import { createReportService, type ReportPlatform } from './report-service';
import { ModelSettingsStore } from './model-settings';
import { RunManager } from './run-manager';
import { ActionLibraryStore } from './action-libraries';
import { RunStore } from '../workspace/run-store';
import { SignOffLog } from '../workspace/sign-off-log';
import { secretKeyStore, userKeyStore } from '../secrets/analyst-key';
import { memorySecretStore, type SecretStore } from '../secrets/secret-store';
import { defaultConfigDir } from '../workspace/paths';
import { EventBus } from './event-bus';
import { createBenchmarkService } from './benchmark-service';
import { createPlaybookService } from './playbook-service';
import { createResultExportService, type ExportDownload } from './result-export-service';
import { LocalModelManager } from './local-models';
import type { ModelProcessLauncher } from '../llm/local/protocol';
import { createRouter, type Handlers } from './router';
import { appVersion } from '../native/version';
import { DocumentStore } from '../workspace/document-store';
import { documentHandlers } from './document-service';
import { connectionHandlers } from './connection-handlers';
import { notebookHandlers } from './notebook-handlers';
import { trashHandlers } from './trash-handlers';
import { createQueryService } from './query-service';
import { OwnedResources } from './owned-resources';
import { QueryHistoryStore } from '../workspace/query-history-store';
import { modelHandlers } from './model-handlers';
import { runHandlers } from './run-handlers';
import { experimentHandlers } from './experiment-handlers';
import { openAgricultureExample } from './example-service';
import { appRoot } from '../native/app-root';

/** What differs between the desktop app and browser mode: only the native pieces. */
export interface Platform extends ReportPlatform {
  transport: 'ipc' | 'websocket';
  /** Native file picker; absent in browser mode, where the user types a path instead. */
  openFileDialog?(options: { title: string; extensions: string[] }): Promise<string | null>;
  /** The OS-encrypted secret store of the desktop app; browser mode keeps secrets in memory. */
  secretStore?(database: AppDatabase): SecretStore;
  /** Starts a local model's process: an Electron utility process in the app; a forked child process when absent. */
  modelProcessLauncher?: ModelProcessLauncher;
}

export interface Workbench {
  readonly directory: string;
  /** Validates and runs one request of the contract. */
  call(method: string, params: unknown): Promise<unknown>;
  /** Typed convenience for in-process callers (CLI, tests). */
  invoke<M extends Method>(method: M, params: Params<M>): Promise<Result<M>>;
  subscribe(listener: <E extends EventName>(event: E, payload: EventPayload<E>) => void): () => void;
  /** Browser mode's result downloads: the export a `results/export-csv` address names, once. */
  takeDownload(ticket: string): ExportDownload | null;
  close(): Promise<void>;
}

/**
 * The main-process services behind the contract: one instance per open workspace, shared by
 * every window and WebSocket session.
 */
export function openWorkbench(options: {
  workspaceDir: string;
  platform: Platform;
  environment?: Environment;
  /** Seed the bundled demo on first open (off for tests that want an empty workspace). */
  installDemo?: boolean;
}): Workbench {
  const environment = options.environment ?? systemEnvironment;
  // Each service is registered as it is opened and closed last-opened first by close().
  const owned = new OwnedResources();
  const database: AppDatabase = owned.own('the workspace database', openAppDatabase(options.workspaceDir), (opened) => opened.close());
  try {
    return assemble(options, environment, database, owned);
  } catch (error) {
    // A workbench that could not be put together leaves nothing open behind it.
    void owned.closeAll().catch(() => undefined);
    throw error;
  }
}

function assemble(options: Parameters<typeof openWorkbench>[0], environment: Environment, database: AppDatabase, owned: OwnedResources): Workbench {
  const notebooks = new NotebookStore(database, environment);
  // One secret store for the workspace: model API keys and connection passwords share it.
  const secrets = options.platform.secretStore?.(database) ?? memorySecretStore();
  const connections = new ConnectionStore(database, environment, secrets);
  const trash = new TrashStore(database);
  const pool = owned.own('the connections', new ConnectionPool((id) => openConnector(connections.get(id).target, connections.password(id))), (opened) => opened.closeAll());
  const bus = new EventBus();
  const runStore = new RunStore(database);
  runStore.markInterrupted(environment.now());
  const modelSettings = new ModelSettingsStore(database, secrets);
  const localModels = owned.own(
    'the local models',
    new LocalModelManager({
      database,
      environment,
      ...(options.platform.modelProcessLauncher ? { launch: options.platform.modelProcessLauncher } : {}),
      onProgress: (id, progress) => bus.emit('local-model-progress', { id, progress }),
    }),
    (opened) => opened.close(),
  );
  const actionLibraries = new ActionLibraryStore(options.workspaceDir, environment);
  const playbooks = createPlaybookService({
    workspaceDir: options.workspaceDir,
    environment,
    modelSettings: () => modelSettings.resolved(),
    history: { runs: runStore, signOffs: new SignOffLog(options.workspaceDir), connector: (id) => pool.get(id), connectionName: (id) => connections.get(id).name },
    connectionExists: (id) => connections.list().some((connection) => connection.id === id),
    emit: (event, payload) => bus.emit(event, payload),
  });
  owned.own('the playbook training', playbooks, (service) => service.settle());
  const documents = new DocumentStore(database, environment);
  const runs = new RunManager({
    notebooks,
    documents: (notebookId) => documents.forRun(notebookId),
    actionLibrary: (id) => actionLibraries.library(id),
    recordActionUsage: (id, actionsCalled) => actionLibraries.recordUsage(id, actionsCalled),
    runs: runStore,
    environment,
    connector: (id) => pool.get(id),
    connectionTarget: (id) => connections.get(id).target,
    modelSettings: () => modelSettings.resolved(),
    localModel: () => localModels.providerForRuns(),
    playbooks: playbooks.store,
    forecastStorePath: join(options.workspaceDir, 'dellma-forecasts.json'),
    emit: (event, payload) => bus.emit(event, payload),
  });
  owned.own('the decision runs', runs, (manager) => manager.stopAll());

  const dellmaRefits = createDellmaRefitService({ runs: runStore, notebooks, environment, isLive: (runId) => runs.active().some((run) => run.runId === runId), emit: (event, payload) => bus.emit(event, payload) });

  if (options.installDemo ?? true) {
    installDemoOnce({ database, workspaceDir: options.workspaceDir, notebooks, connections, environment });
  }

  // The analyst's signing key: in the desktop app's OS key store; in browser mode the one the CLI uses (system keyring, else a 0600 file).
  const analystKeys = secrets.persistent ? secretKeyStore(secrets) : userKeyStore(defaultConfigDir());
  const reports = createReportService({ runs: runStore, notebooks, environment, workspaceDir: options.workspaceDir, platform: options.platform, analystKeys });
  const benchmarks = createBenchmarkService({
    database,
    environment,
    workspaceDir: options.workspaceDir,
    notebooks,
    modelSettings: () => modelSettings.resolved(),
    playbooks: playbooks.store,
    emit: (event, payload) => bus.emit(event, payload),
  });
  owned.own('the benchmarks', benchmarks, (service) => service.stopAll());

  const resultExports = createResultExportService({
    notebooks,
    connector: (id) => pool.get(id),
    platform: options.platform,
    emit: (event, payload) => bus.emit(event, payload),
  });
  owned.own('the result exports', resultExports, (service) => service.stopAll());

  const queries = createQueryService({ connector: (id) => pool.get(id), notebooks, history: new QueryHistoryStore(database), environment, bus });
  owned.own('the queries', queries, (service) => service.stopAll());
  const notebooksChanged = (): void => bus.emit('notebooks-change', {});

  const handlers: Handlers = {
    ...reports.handlers,
    ...resultExports.handlers,
    ...benchmarks.handlers,
    ...playbooks.handlers,
    ...documentHandlers(documents, (notebookId) => bus.emit('documents-change', { notebookId, documents: documents.list(notebookId) })),
    ...connectionHandlers({ connections, pool, secrets, bus }),
    ...notebookHandlers({ notebooks, documents, database, notebooksChanged }),
    ...trashHandlers({ trash, documents, playbooks: playbooks.store, busyNotebooks: () => new Set(runs.active().map((run) => run.notebookId)), bus, notebooksChanged }),
    ...queries.handlers,
    ...modelHandlers({ modelSettings, localModels }),
    ...runHandlers({ runs, runStore, connections, documents, actionLibraries, dellmaRefits }),
    ...experimentHandlers({ connector: (id) => pool.get(id), connections, notebooks, environment, bus }),
    'examples/dellma-agriculture': async () => {
      const opened = await openAgricultureExample({ workspaceDir: options.workspaceDir, dataDir: join(appRoot(), 'fixtures', 'dellma', 'agriculture'), notebooks, connections, documents, release: (id) => pool.release(id) });
      bus.emit('connections-change', {});
      notebooksChanged();
      return opened;
    },
    'workspace/info': () => ({ directory: options.workspaceDir, transport: options.platform.transport, version: appVersion() }),
    'dialog/open-file': async ({ title, extensions }) => {
      if (!options.platform.openFileDialog) {
        throw new WorkbenchError('unsupported', 'No file picker in browser mode: type the file path instead');
      }
      return { path: await options.platform.openFileDialog({ title, extensions }) };
    },
  };

  const call = createRouter(handlers);
  return {
    directory: options.workspaceDir,
    call,
    invoke: (method, params) => call(method, params) as never,
    subscribe: (listener) => bus.subscribe(listener),
    takeDownload: (ticket) => resultExports.takeDownload(ticket),
    // Closing twice (a test's own close, then its clean-up) waits for the first, never a closed-database error.
    close: () => owned.closeAll(),
  };
}
