import type { Connector } from '../connectors/connector';
import type { ResolvedFidelity } from '../contract/fidelity';
import type { ProviderSettings } from '../contract/model';
import type { RunEvent } from '../contract/run';
import { redactUrl } from '../llm/settings';
import { connectionFingerprint, databaseFilePath, type ConnectionFingerprint } from '../audit/connection-fingerprint';

/** What a run's `run-start` event should say besides what the engine knows. */
export interface RunDetails {
  fingerprint: ConnectionFingerprint | null;
  settings: Pick<ProviderSettings, 'baseUrl' | 'model' | 'temperature' | 'maxTokens'> | null;
  /** The run's fidelity as resolved (temperature, per-call limits, each extension on or off); recorded whole. */
  fidelity?: ResolvedFidelity;
  /** A local model's thread choice, known once it is loaded; absent for a server. */
  threads?: RunThreads | null;
}

export type RunThreads = NonNullable<Extract<RunEvent, { type: 'run-start' }>['model']['threads']>;

/**
 * Reads the connection's fingerprint before a run and returns a function that adds it, and the
 * model endpoint and sampling settings, to the run's `run-start` event (every other event
 * passes through unchanged). Callers wrap the engine's `emit` with it:
 *
 *     const details = await runDetails({ connector, target, settings });
 *     runDecision({ …, emit: (event) => log.append(details(event)) });
 *
 * A fingerprint that cannot be read (a schema error) is left out rather than failing the run:
 * the engine reports the schema error itself.
 */
export async function runDetails(input: {
  connector: Pick<Connector, 'schema'>;
  target: { engine: string };
  settings: RunDetails['settings'];
  fidelity?: ResolvedFidelity;
  threads?: RunThreads | null;
}): Promise<(event: RunEvent) => RunEvent> {
  let fingerprint: ConnectionFingerprint | null = null;
  try {
    fingerprint = await connectionFingerprint({ schema: await input.connector.schema(), filePath: databaseFilePath(input.target) });
  } catch {
    fingerprint = null;
  }
  return (event) => addRunDetails(event, { fingerprint, settings: input.settings, ...(input.fidelity ? { fidelity: input.fidelity } : {}), threads: input.threads ?? null });
}

/** The `run-start` event with the details added; any other event unchanged. */
export function addRunDetails(event: RunEvent, details: RunDetails): RunEvent {
  if (event.type !== 'run-start') return event;
  const { settings, fidelity } = details;
  // The temperature the run's turns are asked with: the fidelity's when it sets one, else the settings'.
  const temperature = fidelity?.temperature ?? settings?.temperature;
  return {
    ...event,
    connection: { ...event.connection, ...(details.fingerprint ? { fingerprint: details.fingerprint } : {}) },
    model: {
      ...event.model,
      ...(settings ? { endpoint: redactUrl(settings.baseUrl), name: settings.model, maxTokens: settings.maxTokens } : {}),
      ...(temperature !== undefined ? { temperature } : {}),
      ...(details.threads ? { threads: details.threads } : {}),
    },
    ...(fidelity ? { fidelity } : {}),
  };
}
