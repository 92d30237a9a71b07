import type { Connector } from '../connectors/connector';
import { WorkbenchError } from '../contract/errors';
import type { SimulationResult, SimulationSpec, Verification } from '../contract/simulation';
import { solveBuilding } from '../dqa/building';
import { loadBuildingFromConnector, loadLocatingFromConnector } from '../dqa/from-connector';
import { solveLocating } from '../dqa/locating';
import { withinTolerance, type DecisionResult } from '../dqa/simulation';

/**
 * Runs a scenario simulator on the data behind a connector (read-only, like every query):
 * every candidate decision, its objective before and after, the best, the margin and ties.
 */
export async function runSimulation(connector: Connector, spec: SimulationSpec): Promise<SimulationResult> {
  const started = performance.now();
  let result: DecisionResult;
  try {
    if (spec.scenario === 'locating') {
      const { data } = await loadLocatingFromConnector(connector);
      result = solveLocating(data, { country: spec.country, home: spec.home }, { rules: spec.rules });
    } else {
      const { data } = await loadBuildingFromConnector(connector);
      result = solveBuilding(data, { goods: spec.goods }, { rules: spec.rules });
    }
  } catch (error) {
    if (error instanceof WorkbenchError) throw error;
    throw new WorkbenchError('invalid-request', `Simulation failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return {
    spec,
    candidates: result.candidates,
    best: result.best,
    margin: Number.isFinite(result.margin) ? result.margin : null,
    tied: result.tied,
    objective: result.objective,
    direction: spec.scenario === 'locating' ? 'maximize' : 'minimize',
    candidateSet: result.candidateSet,
    notes: result.notes,
    elapsedMs: performance.now() - started,
  };
}

/** Compares a decision with the simulated optimum; candidates match by name, case-insensitively. */
export function verifyDecision(decision: string, simulation: SimulationResult): Verification {
  const normalized = normalize(decision);
  const bestRow = simulation.candidates.find((row) => row.candidate === simulation.best);
  const chosen = simulation.candidates.find((row) => normalize(row.candidate) === normalized);
  const agrees = simulation.tied.some((candidate) => normalize(candidate) === normalized);
  const regret =
    chosen && bestRow
      ? agrees || withinTolerance(chosen.after, bestRow.after)
        ? 0
        : Math.abs(bestRow.after - chosen.after)
      : null;
  return { decision, best: simulation.best, tied: simulation.tied, agrees, regret, objective: simulation.objective };
}

function normalize(text: string): string {
  return text.trim().replace(/^["'`]|["'`.]$/g, '').toLowerCase();
}

/** The compact table the model reads back from its `simulate` call. */
export function formatSimulationForModel(result: SimulationResult, maxRows = 12): string {
  const lines = result.candidates.slice(0, maxRows).map((row) => `${row.rank} | ${row.candidate} | ${row.before} | ${row.after} | ${row.delta}`);
  const more = result.candidates.length > maxRows ? `\n… ${result.candidates.length - maxRows} more candidates, all ranked lower` : '';
  return [
    `objective: ${result.objective}; rules: ${result.spec.rules}`,
    `best: ${result.best}${result.tied.length > 1 ? ` (tied with ${result.tied.filter((candidate) => candidate !== result.best).join(', ')})` : ''}; margin over the runner-up: ${result.margin ?? 'n/a'}`,
    `candidates: ${result.candidateSet}`,
    'rank | candidate | before | after | delta',
    ...lines,
  ].join('\n') + more;
}
