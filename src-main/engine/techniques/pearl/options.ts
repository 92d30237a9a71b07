import { z } from 'zod';
import { WorkbenchError } from '../../../contract/errors';
import { declareOptions, type TechniqueHost } from '../technique';
import type { ActionLibrary } from './library';

/** Pearl's own options, as `runs/start` takes them in `techniqueOptions` and stores them with the run. */
export const pearlOptionsSchema = z.strictObject({
  /**
   * The action library the run plans with, resolved by the host: a workspace library id in the
   * app (`pearl/libraries/list`), a library file with `dwb run --actions`. Absent: the best fit
   * of the libraries on offer for the data's scenario and schema (the seed).
   */
  actionLibrary: z.string().min(1, 'name a library').optional(),
});
export type PearlOptions = z.infer<typeof pearlOptionsSchema>;

/** The library an `actionLibrary` reference names, from the host; refused clearly when the host keeps none. */
export function namedLibrary(reference: string, host: TechniqueHost): ActionLibrary {
  if (!host.actionLibrary) throw new WorkbenchError('unsupported', 'This workbench keeps no action libraries');
  return host.actionLibrary(reference);
}

/** The workspace library a stored Pearl run planned with: the one it named, else the seed (the app offers no other). */
export function plannedLibraryReference(options: unknown): string {
  const parsed = pearlOptionsSchema.safeParse(options ?? {});
  return (parsed.success ? parsed.data.actionLibrary : undefined) ?? 'seed';
}

export const pearlOptions = declareOptions<PearlOptions>({
  schema: pearlOptionsSchema,
  flags: [{ name: 'actions', value: 'LIB.json', description: 'Plan with this action library file (absent: the seed library).' }],
  fromFlags: (values) => (values['actions'] !== undefined ? { actionLibrary: values['actions'] } : {}),
  flagOf: (field) => (field === 'actionLibrary' ? '--actions' : undefined),
  // An unknown library, or one mined and still waiting for review, is refused before the run is stored.
  check: (options, host) => {
    if (options.actionLibrary !== undefined) namedLibrary(options.actionLibrary, host);
  },
});
