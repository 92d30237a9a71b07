import { createDellmaRefitService } from './dellma-refit-service';
import { join } from 'node:path';
import { registeredTechniques } from '../engine/techniques/registry';
import { estimateDellmaRun } from '../engine/techniques/dellma/run-estimate';
import { checkProgram } from '../engine/techniques/pearl/program';
import type { EventName, EventPayload, Method, Params, Result } from '../contract/api';
import { WorkbenchError } from '../contract/errors';
import { openAppDatabase, type AppDatabase } from '../workspace/app-database';
import { systemEnvironment, type Environment } from '../workspace/clock';
import { ConnectionStore } from '../workspace/connection-store';
import { NotebookStore } from '../workspace/notebook-store';
import { TrashStore } from '../workspace/trash-store';
import { searchCells } from '../workspace/cell-search';
import { installDemoOnce } from '../workspace/demo';
import { openConnector } from '../connectors/open-connector';
import { normalizeTarget } from '../connectors/target-check';
import { testConnection } from '../connectors/test-connection';
import { ConnectionPool } from './connection-pool';
import { createReportService, type ReportPlatform } from './report-service';
import { ModelSettingsStore } from './model-settings';
import { RunManager } from './run-manager';
import { ActionLibraryStore } from './action-libraries';
import { recogniseScenario } from '../simulators/scenario';
import { runSimulation } from '../simulators/run-simulation';
import { runWhatIfOnConnection, whatIfSupport } from '../whatif';
import { RunStore } from '../workspace/run-store';
import { SignOffLog } from '../workspace/sign-off-log';
import { fileKeyStore, secretKeyStore } from '../secrets/analyst-key';
import { memorySecretStore, type SecretStore } from '../secrets/secret-store';
import { defaultConfigDir } from '../workspace/paths';
import { testProviderConnection } from '../llm/test-connection';
import { EventBus } from './event-bus';
import { queryRowsForwarder } from './query-rows-events';
import { resultPreviewRows } from '../contract/data';
import { createBenchmarkService } from './benchmark-service';
import { createPlaybookService } from './playbook-service';
import { createResultExportService, type ExportDownload } from './result-export-service';
import { LocalModelManager } from './local-models';
import type { ModelProcessLauncher } from '../llm/local/protocol';
import { createRouter, type Handlers } from './router';
import { appVersion } from '../native/version';
import { DocumentStore } from '../workspace/document-store';
import { documentHandlers } from './document-service';
import { documentContext } from '../engine/techniques/dellma/documents';
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
  const database: AppDatabase = openAppDatabase(options.workspaceDir);
  const notebooks = new NotebookStore(database, environment);
  // One secret store for the workspace: model API keys and connection passwords share it.
  const secrets = options.platform.secretStore?.(database) ?? memorySecretStore();
  const connections = new ConnectionStore(database, environment, secrets);
  const trash = new TrashStore(database);
  const pool = new ConnectionPool((id) => openConnector(connections.get(id).target, connections.password(id)));
  const bus = new EventBus();
  const running = new Map<string, AbortController>();
  /** What-if runs that can be cancelled, by request id. */
  const experiments = new Map<string, AbortController>();
  const runStore = new RunStore(database);
  runStore.markInterrupted(environment.now());
  const modelSettings = new ModelSettingsStore(database, secrets);
  const localModels = new LocalModelManager({
    database,
    environment,
    ...(options.platform.modelProcessLauncher ? { launch: options.platform.modelProcessLauncher } : {}),
    onProgress: (id, progress) => bus.emit('local-model-progress', { id, progress }),
  });
  const actionLibraries = new ActionLibraryStore(options.workspaceDir, environment);
  const playbooks = createPlaybookService({
    workspaceDir: options.workspaceDir,
    environment,
    modelSettings: () => modelSettings.resolved(),
    history: { runs: runStore, signOffs: new SignOffLog(options.workspaceDir), connector: (id) => pool.get(id), connectionName: (id) => connections.get(id).name },
    connectionExists: (id) => connections.list().some((connection) => connection.id === id),
    emit: (event, payload) => bus.emit(event, payload),
  });
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

  const dellmaRefits = createDellmaRefitService({ runs: runStore, notebooks, environment, isLive: (runId) => runs.active().some((run) => run.runId === runId), emit: (event, payload) => bus.emit(event, payload) });

  if (options.installDemo ?? true) {
    installDemoOnce({ database, workspaceDir: options.workspaceDir, notebooks, connections, environment });
  }

  // The analyst's signing key: in the OS key store where there is one, else a 0600 file in the user's config folder.
  const analystKeys = secrets.persistent ? secretKeyStore(secrets) : fileKeyStore(join(defaultConfigDir(), 'keys'));
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

  const resultExports = createResultExportService({
    notebooks,
    connector: (id) => pool.get(id),
    platform: options.platform,
    emit: (event, payload) => bus.emit(event, payload),
  });

  const handlers: Handlers = {
    ...reports.handlers,
    ...resultExports.handlers,
    ...benchmarks.handlers,
    ...playbooks.handlers,
    ...documentHandlers(documents, (notebookId) => bus.emit('documents-change', { notebookId, documents: documents.list(notebookId) })),
    'examples/dellma-agriculture': async () => {
      const opened = await openAgricultureExample({ workspaceDir: options.workspaceDir, dataDir: join(appRoot(), 'fixtures', 'dellma', 'agriculture'), notebooks, connections, documents, release: (id) => pool.release(id) });
      bus.emit('connections-change', {});
      return changed(opened);
    },
    'workspace/info': () => ({ directory: options.workspaceDir, transport: options.platform.transport, version: appVersion() }),

    'connections/list': () => connections.list(),
    'connections/add': ({ name, target, password }) => {
      const connection = connections.add(name, normalizeTarget(target), password);
      bus.emit('connections-change', {});
      return connection;
    },
    'connections/rename': ({ id, name }) => {
      const connection = connections.rename(id, name);
      bus.emit('connections-change', {});
      return connection;
    },
    'connections/update': async ({ id, name, target, password }) => {
      const connection = connections.update(id, { name, target: target && normalizeTarget(target), password });
      // The open connector still uses the old target or password: the next use reopens.
      await pool.release(id);
      bus.emit('connections-change', {});
      return connection;
    },
    'connections/remove': async ({ id }) => {
      connections.remove(id);
      await pool.release(id);
      bus.emit('connections-change', {});
      return { ok: true as const };
    },
    'connections/schema': async ({ id }) => {
      const connector = await pool.get(id);
      return { connectionId: id, schema: await connector.schema() };
    },
    'connections/test': ({ target, password, id }) =>
      testConnection(target, password ?? (id === undefined ? null : connections.password(id))),
    'connections/secrets-info': () => ({ persistent: secrets.persistent }),

    'notebooks/list': () => notebooks.list(),
    'notebooks/get': ({ id }) => notebooks.get(id),
    'notebooks/create': ({ title }) => changed(notebooks.create(title)),
    'notebooks/rename': ({ id, title }) => changed(notebooks.rename(id, title)),
    'notebooks/duplicate': ({ id }) => {
      const copy = notebooks.duplicate(id);
      documents.copy(id, copy.id);
      return changed(copy);
    },
    'notebooks/delete': ({ id }) => {
      notebooks.delete(id);
      return changed({ ok: true as const });
    },
    'notebooks/restore': ({ id }) => changed(notebooks.restore(id)),

    'cells/insert': (params) => notebooks.insertCell(params),
    'cells/update': (params) => notebooks.updateCell(params),
    'cells/move': ({ id, afterCellId }) => {
      notebooks.moveCell(id, afterCellId);
      return { ok: true as const };
    },
    'cells/delete': ({ id }) => {
      notebooks.deleteCell(id);
      return { ok: true as const };
    },
    'cells/restore': ({ id }) => notebooks.restoreCell(id),

    'search/cells': ({ text, limit }) => searchCells(database, text, limit),
    'trash/list': () => ({
      ...trash.list(),
      playbooks: playbooks.store.setAsideList().map((aside) => ({ ...aside, connectionName: trash.connectionName(aside.scenario.slice('conn-'.length)) })),
    }),
    'trash/restore': ({ kind, id }) => {
      if (kind === 'document') {
        const notebookId = documents.restore(id);
        bus.emit('documents-change', { notebookId, documents: documents.list(notebookId) });
        return { ok: true as const };
      }
      if (kind === 'playbooks') {
        playbooks.store.putBack(id);
        bus.emit('playbooks-change', {});
        return { ok: true as const };
      }
      trash.restore(kind, id);
      if (kind === 'connection') bus.emit('connections-change', {});
      return changed({ ok: true as const });
    },
    'trash/empty': () => {
      const removed = trash.empty(new Set(runs.active().map((run) => run.notebookId)));
      bus.emit('connections-change', {});
      return { ...removed, playbooks: playbooks.store.emptySetAside() };
    },

    'query/run': async ({ requestId, connectionId, text, settings, cellId }) => {
      if (running.has(requestId)) throw new WorkbenchError('conflict', `A query named ${requestId} is already running`);
      const controller = new AbortController();
      running.set(requestId, controller);
      const ranAt = environment.now();
      const started = performance.now();
      bus.emit('query-start', { requestId, connectionId, ...(cellId ? { cellId } : {}) });
      try {
        const connector = await pool.get(connectionId);
        // Streamed: the grid gets the first rows at once and a live count; the reply and the
        // saved output hold a bounded preview (README › Results), never the whole of a large result.
        const onRows = queryRowsForwarder(bus, { requestId, ...(cellId ? { cellId } : {}) });
        const result = await connector.query(text, { ...settings, signal: controller.signal, keepRows: resultPreviewRows, onRows });
        if (cellId) notebooks.saveOutput(cellId, { status: 'ok', result, ranAt, connectionId, query: text });
        bus.emit('query-end', { requestId, status: 'ok', rowCount: result.rowCount, elapsedMs: result.elapsedMs, ...(cellId ? { cellId } : {}) });
        return result;
      } catch (caught) {
        const error = WorkbenchError.from(caught);
        if (cellId) notebooks.saveOutput(cellId, { status: 'error', error: error.toJSON(), ranAt, connectionId });
        const status = error.code === 'cancelled' ? 'cancelled' : 'error';
        bus.emit('query-end', { requestId, status, elapsedMs: performance.now() - started, ...(cellId ? { cellId } : {}) });
        throw error;
      } finally {
        running.delete(requestId);
      }
    },
    'query/cancel': ({ requestId }) => {
      const controller = running.get(requestId);
      controller?.abort();
      return { cancelled: controller !== undefined };
    },

    'model/get': () => modelSettings.view(),
    'model/save': ({ settings, apiKey }) => modelSettings.save(settings, apiKey),
    'model/test': ({ settings, apiKey }) => testProviderConnection(modelSettings.withKey(settings, apiKey)),

    'local-models/list': () => localModels.view(),
    'local-models/add': ({ path }) => localModels.add(path),
    'local-models/remove': ({ id }) => localModels.remove(id),
    'local-models/load': ({ id, threads, contextSize }) => localModels.load(id, { ...(threads ? { threads } : {}), ...(contextSize ? { contextSize } : {}) }),
    'local-models/unload': () => localModels.unload(),
    'local-models/select': ({ id }) => localModels.select(id),

    'runs/start': ({ connectionId, ...rest }) => runs.start({ ...rest, connectionId, connectionName: connections.get(connectionId).name }),
    'runs/rerun-node': ({ runId, node, question, pinned }) => runs.rerunNode(runId, { node, question, pinned }),
    'runs/review': ({ runId, decision }) => {
      runs.review(runId, decision);
      return { ok: true as const };
    },
    'runs/stop': ({ runId }) => {
      runs.stop(runId);
      return { ok: true as const };
    },
    'runs/resume': async ({ runId }) => {
      await runs.resume(runId);
      return { ok: true as const };
    },
    'runs/set-mode': ({ runId, mode }) => {
      runs.setMode(runId, mode);
      return { ok: true as const };
    },
    'runs/list': ({ notebookId }) => runStore.list(notebookId),
    'dellma/rank-batch': ({ runId, batch, lines }) => dellmaRefits.rankBatch(runId, batch, lines),
    'dellma/withdraw-refit': ({ runId, node }) => dellmaRefits.withdraw(runId, node),
    'pearl/check': ({ program, actions }) => checkProgram(program, actions),
    'pearl/run-program': ({ runId, program, mode }) => runs.runProgram(runId, program, mode),
    'pearl/rerun-step': ({ runId, step, mode }) => runs.rerunStep(runId, step, mode),
    'pearl/libraries/list': () => actionLibraries.list(),
    'pearl/libraries/get': ({ id, version }) => actionLibraries.get(id, version),
    'pearl/libraries/save': ({ id, actions, note }) => actionLibraries.save(id, actions, note),
    'pearl/libraries/mine': async ({ connectionId, from }) => {
      const mined = await runs.mineFromPastQuestions(connectionId, from === undefined ? undefined : actionLibraries.library(from));
      return actionLibraries.addMined(mined.library, mined.rounds, `mined from ${mined.questions} past question${mined.questions === 1 ? '' : 's'} and their rules`);
    },
    'pearl/libraries/refine': async ({ connectionId, id }) => {
      const { outcomes, demonstrations } = await runs.refineOnPastQuestions(connectionId, actionLibraries.library(id));
      const kept = demonstrations.length;
      return { library: kept === 0 ? null : actionLibraries.refine(id, demonstrations, `refined ${kept} demonstration${kept === 1 ? '' : 's'} on ${outcomes.length} past question${outcomes.length === 1 ? '' : 's'}`), outcomes };
    },
    'pearl/libraries/decide': ({ id, accept }) => actionLibraries.decide(id, accept),
    'pearl/libraries/promote': ({ runId, program }) => actionLibraries.promote(runs.libraryIdOf(runId), program, runId),
    'pearl/libraries/import': ({ path }) => actionLibraries.import(path),
    'runs/active': () => runs.active(),
    'runs/techniques': () => registeredTechniques().map(({ id, label, summary }) => ({ id, label, summary })),
    'dellma/estimate': ({ question, rules, settings, notebookId }) => estimateDellmaRun(question, rules, settings, notebookId ? documentContext(documents.forRun(notebookId)).text.length : 0),

    'simulations/detect': async ({ connectionId }) => ({ scenario: recogniseScenario(await (await pool.get(connectionId)).schema()) }),
    'simulations/run': async ({ connectionId, spec, cellId }) => {
      const ranAt = environment.now();
      try {
        const simulation = await runSimulation(await pool.get(connectionId), spec);
        if (cellId) notebooks.saveOutput(cellId, { status: 'simulated', simulation, ranAt, connectionId });
        return simulation;
      } catch (caught) {
        const error = WorkbenchError.from(caught);
        if (cellId) notebooks.saveOutput(cellId, { status: 'error', error: error.toJSON(), ranAt, connectionId });
        throw error;
      }
    },

    'whatif/support': ({ connectionId }) => {
      const support = whatIfSupport(connections.get(connectionId).target);
      return support.supported ? { supported: true, reason: null, note: support.note } : { supported: false, reason: support.reason, note: null };
    },
    'whatif/run': async ({ connectionId, spec, cellId, requestId }) => {
      const ranAt = environment.now();
      const controller = new AbortController();
      if (requestId) experiments.set(requestId, controller);
      let reportedAt = 0;
      const onProgress = (done: number, total: number): void => {
        // Thousands of fast candidates would flood the clients: a few updates a second, and the last.
        if (!requestId || (done < total && Date.now() - reportedAt < 200)) return;
        reportedAt = Date.now();
        bus.emit('whatif-progress', { requestId, done, total });
      };
      try {
        const whatif = await runWhatIfOnConnection(connections.get(connectionId).target, await pool.get(connectionId), spec, { signal: controller.signal, onProgress });
        if (cellId) notebooks.saveOutput(cellId, { status: 'whatif', whatif, ranAt, connectionId });
        return whatif;
      } catch (caught) {
        const error = WorkbenchError.from(caught);
        if (cellId) notebooks.saveOutput(cellId, { status: 'error', error: error.toJSON(), ranAt, connectionId });
        throw error;
      } finally {
        if (requestId) experiments.delete(requestId);
      }
    },
    'whatif/cancel': ({ requestId }) => {
      const controller = experiments.get(requestId);
      controller?.abort();
      return { cancelled: controller !== undefined };
    },

    'dialog/open-file': async ({ title, extensions }) => {
      if (!options.platform.openFileDialog) {
        throw new WorkbenchError('unsupported', 'No file picker in browser mode: type the file path instead');
      }
      return { path: await options.platform.openFileDialog({ title, extensions }) };
    },
  };

  function changed<T>(value: T): T {
    bus.emit('notebooks-change', {});
    return value;
  }

  const call = createRouter(handlers);
  let closed = false;
  return {
    directory: options.workspaceDir,
    call,
    invoke: (method, params) => call(method, params) as never,
    subscribe: (listener) => bus.subscribe(listener),
    takeDownload: (ticket) => resultExports.takeDownload(ticket),
    close: async () => {
      // Closing twice (a test's own close, then its clean-up) is a no-op, not a closed-database error.
      if (closed) return;
      closed = true;
      await runs.stopAll();
      await benchmarks.stopAll();
      await playbooks.settle();
      await localModels.close();
      for (const controller of running.values()) controller.abort();
      resultExports.stopAll();
      await pool.closeAll();
      database.close();
    },
  };
}
