import { WorkbenchError } from '../contract/errors';
import { fidelities, type Fidelity, type RunFidelityRequest } from '../contract/fidelity';
import { registeredTechniques, techniqueNamed } from '../engine/techniques/registry';
import { extensionSwitchProblem } from '../engine/techniques/technique-extensions';
import { numberOption } from './command-io';

/** `--fidelity paper|product` and `--temperature T`, as `dwb run`, `dwb dqa solve` and `dwb dellma solve` take them. */
export const fidelityCliOptions = {
  fidelity: { type: 'string' },
  temperature: { type: 'string' },
  extension: { type: 'string', multiple: true },
} as const;

/**
 * The fidelity a command runs at: `--fidelity` or the command's default (`paper` for the
 * benchmarks, `product` for `dwb run`), `--temperature` when given (0 to 2, the range the
 * model settings allow), and `--extension ID=on|off` (repeatable) for single extensions of
 * `technique` switched against the fidelity's default (`dwb dellma solve`, whose pipeline has
 * none of the registry's, passes no technique and takes none).
 */
export function fidelityFromCli(values: { fidelity?: string | undefined; temperature?: string | undefined; extension?: string[] | undefined }, byDefault: Fidelity, technique?: string): RunFidelityRequest {
  const fidelity = values.fidelity ?? byDefault;
  if (!(fidelities as readonly string[]).includes(fidelity)) throw new WorkbenchError('invalid-request', `--fidelity must be ${fidelities.join(' or ')}, got "${fidelity}"`);
  const temperature = numberOption(values.temperature, '--temperature', 'a number from 0 to 2', (n) => n >= 0 && n <= 2);
  const extensions = switchedExtensions(values.extension ?? [], technique);
  return { fidelity: fidelity as Fidelity, ...(temperature !== undefined ? { temperature } : {}), ...(Object.keys(extensions).length ? { extensions } : {}) };
}

function switchedExtensions(written: readonly string[], technique: string | undefined): Record<string, boolean> {
  if (written.length > 0 && technique === undefined) throw new WorkbenchError('invalid-request', '--extension switches an extension of a decision technique; this command runs none');
  const switched: Record<string, boolean> = {};
  for (const item of written) {
    const match = /^([a-z][a-z0-9-]*)=(on|off)$/.exec(item.trim());
    if (!match) throw new WorkbenchError('invalid-request', `--extension takes ID=on or ID=off (e.g. query-feedback=on), got "${item}"`);
    switched[match[1] as string] = match[2] === 'on';
  }
  const problem = technique === undefined ? null : extensionSwitchProblem(techniqueNamed(technique), switched, registeredTechniques());
  if (problem) throw new WorkbenchError('invalid-request', `--extension: ${problem}`);
  return switched;
}
