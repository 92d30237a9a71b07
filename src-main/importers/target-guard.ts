import { WorkbenchError } from '../contract/errors';

/**
 * Refuses to overwrite a file or database the importer did not make: only places holding an
 * import record are ever replaced, so an analyst's own data can never be clobbered.
 */
export function notMadeByImport(location: string): never {
  throw new WorkbenchError(
    'conflict',
    `${location} exists but was not made by "dwb dqa import" (it holds no import record); move it away or choose another target`,
  );
}
