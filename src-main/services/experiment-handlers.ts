import type { Connector } from '../connectors/connector';
import { WorkbenchError } from '../contract/errors';
import { planCheck } from '../simulators/check-plan';
import { recogniseScenario } from '../simulators/scenario';
import { runSimulation } from '../simulators/run-simulation';
import { runWhatIfOnConnection, whatIfSupport } from '../whatif';
import type { Environment } from '../workspace/clock';
import type { ConnectionStore } from '../workspace/connection-store';
import type { NotebookStore } from '../workspace/notebook-store';
import type { EventBus } from './event-bus';
import type { HandlersFor } from './router';

/** What-if progress at most this often: thousands of fast candidates would flood the clients. */
const whatIfProgressIntervalMs = 200;

/**
 * The `simulations/*` and `whatif/*` requests: a DQA simulation or a what-if experiment on a
 * saved connection, its output saved to the cell that asked (an error too); a what-if can be
 * cancelled by its request id.
 */
export function experimentHandlers(dependencies: {
  connector(id: string): Promise<Connector>;
  connections: ConnectionStore;
  notebooks: NotebookStore;
  environment: Environment;
  bus: EventBus;
}): HandlersFor<'simulations/' | 'whatif/'> {
  const { connections, notebooks, environment, bus } = dependencies;
  const experiments = new Map<string, AbortController>();
  return {
    'simulations/detect': async ({ connectionId }) => ({ scenario: recogniseScenario(await (await dependencies.connector(connectionId)).schema()) }),
    'simulations/check-plan': async ({ connectionId, question, known, simulatorRules }) => {
      const { simulator: _simulator, ...plan } = await planCheck(await dependencies.connector(connectionId), { rules: simulatorRules, known, question });
      return plan;
    },
    'simulations/run': async ({ connectionId, spec, cellId }) => {
      const ranAt = environment.now();
      try {
        const simulation = await runSimulation(await dependencies.connector(connectionId), spec);
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
        if (!requestId || (done < total && Date.now() - reportedAt < whatIfProgressIntervalMs)) return;
        reportedAt = Date.now();
        bus.emit('whatif-progress', { requestId, done, total });
      };
      try {
        const whatif = await runWhatIfOnConnection(connections.get(connectionId).target, await dependencies.connector(connectionId), spec, { signal: controller.signal, onProgress });
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
  };
}
