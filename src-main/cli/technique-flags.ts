import { readBoundedText } from '../native/bounded-read';
import { WorkbenchError, fileErrorReason } from '../contract/errors';
import { readActionLibrary } from '../engine/techniques/pearl/library';
import { registeredTechniques, techniqueNamed } from '../engine/techniques/registry';
import type { TechniqueHost } from '../engine/techniques/technique';
import { techniqueFlagOptions, techniqueFlagsHelp, techniqueOptionsFromFlags } from '../engine/techniques/technique-options';

/**
 * The techniques' own command-line flags (`dwb run`, `dwb dqa solve`), read from each
 * technique's options declaration rather than written here: a registered technique's flags
 * are parsed, mapped into its options and listed in the help without a line in the CLI.
 */
export function techniqueCliOptions(): Record<string, { type: 'string' }> {
  return techniqueFlagOptions(registeredTechniques());
}

/** The options the flags give `technique` (undefined: none); another technique's flag is refused naming it. */
export function techniqueOptionsFromCli(values: Readonly<Record<string, unknown>>, technique: string, techniqueOption: '--technique' | '--engine'): Record<string, unknown> | undefined {
  return techniqueOptionsFromFlags({ values, technique: techniqueNamed(technique), techniques: registeredTechniques(), techniqueOption });
}

/** The technique flags' help lines, printed under `dwb run --help` and `dwb dqa solve --help`. */
export function techniqueFlagsUsage(): string {
  return techniqueFlagsHelp(registeredTechniques());
}

/** What the CLI lends techniques: an action library reference is a library file. */
export const cliTechniqueHost: TechniqueHost = {
  actionLibrary: (path) => {
    let text: string;
    try {
      text = readBoundedText(path);
    } catch (error) {
      throw new WorkbenchError('not-found', `Cannot read the action library file ${path}: ${fileErrorReason(error)}`);
    }
    return readActionLibrary(text, path);
  },
};
