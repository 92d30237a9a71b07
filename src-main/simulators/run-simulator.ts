import type { Connector } from '../connectors/connector';
import type { SimulationResult, SimulationSpec, Scenario } from '../contract/simulation';
import { recogniseScenario } from './scenario';
import { runSimulation } from './run-simulation';

/** A simulator that fits a run's data: offered to the model as `simulate`, and used to check the decision. */
export interface RunSimulator {
  scenario: Scenario;
  rules: 'stated' | 'compat';
  /** Parameters known from the question itself (e.g. a DQA question's country and home node). */
  known: { country?: string; home?: string; goods?: string };
  run(spec: SimulationSpec): Promise<SimulationResult>;
}

/** Which rule set a run's simulator follows (or none), and what the question already says. */
export interface SimulatorChoice {
  rules: 'stated' | 'compat' | 'off';
  known: RunSimulator['known'];
}

/** The simulator for a run's data, when one fits; null otherwise or when the analyst turned it off. */
export async function simulatorFor(connector: Connector, options: SimulatorChoice): Promise<RunSimulator | null> {
  if (options.rules === 'off') return null;
  const scenario = recogniseScenario(await connector.schema());
  if (!scenario) return null;
  return { scenario, rules: options.rules, known: options.known, run: (spec) => runSimulation(connector, spec) };
}
