import type { Connector } from '../connectors/connector';
import type { RunSimulator } from '../engine/decision-run';
import { recogniseScenario } from './scenario';
import { runSimulation } from './run-simulation';

/** The simulator for a run's data, when one fits; null otherwise or when the analyst turned it off. */
export async function simulatorFor(
  connector: Connector,
  options: { rules: 'stated' | 'compat' | 'off'; known: RunSimulator['known'] },
): Promise<RunSimulator | null> {
  if (options.rules === 'off') return null;
  const scenario = recogniseScenario(await connector.schema());
  if (!scenario) return null;
  return { scenario, rules: options.rules, known: options.known, run: (spec) => runSimulation(connector, spec) };
}
