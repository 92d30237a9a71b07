import { WorkbenchError } from '../contract/errors';
import { fidelities, type Fidelity, type RunFidelityRequest } from '../contract/fidelity';
import { numberOption } from './command-io';

/** `--fidelity paper|product` and `--temperature T`, as `dwb run`, `dwb dqa solve` and `dwb dellma solve` take them. */
export const fidelityCliOptions = {
  fidelity: { type: 'string' },
  temperature: { type: 'string' },
} as const;

/**
 * The fidelity a command runs at: `--fidelity` or the command's default (`paper` for the
 * benchmarks, `product` for `dwb run`), and `--temperature` when given (0 to 2, the range
 * the model settings allow).
 */
export function fidelityFromCli(values: { fidelity?: string | undefined; temperature?: string | undefined }, byDefault: Fidelity): RunFidelityRequest {
  const fidelity = values.fidelity ?? byDefault;
  if (!(fidelities as readonly string[]).includes(fidelity)) throw new WorkbenchError('invalid-request', `--fidelity must be ${fidelities.join(' or ')}, got "${fidelity}"`);
  const temperature = numberOption(values.temperature, '--temperature', 'a number from 0 to 2', (n) => n >= 0 && n <= 2);
  return { fidelity: fidelity as Fidelity, ...(temperature !== undefined ? { temperature } : {}) };
}
