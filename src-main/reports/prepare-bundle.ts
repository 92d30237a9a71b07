import { WorkbenchError } from '../contract/errors';
import { appVersion } from '../native/version';
import type { ReportBundle, SignOffInput } from './bundle-format';
import { addSignOff, sealBundle, serializeBundle, type RunMaterials } from './create-bundle';
import { describeFailure, verifyBundleText } from './verify-bundle';

/** The name a bundle records as its maker. */
export function generatorName(): string {
  return `Decision Workbench ${appVersion()}`;
}

/**
 * A run's materials sealed into a bundle and read back through the verifier, so that a report
 * is only ever made from a bundle that verifies exactly as `dwb verify` will check it later.
 */
export function bundleFromRun(materials: RunMaterials, options: { at: string; signOff?: SignOffInput | null; generator?: string }): ReportBundle {
  const sealed = sealBundle(materials, { at: options.at, generator: options.generator ?? generatorName(), signOff: options.signOff ?? null });
  return reverify(serializeBundle(sealed));
}

/** A bundle file, verified, with one more sign-off when given. A bundle that fails is refused, naming where. */
export function bundleFromFile(text: string, options: { at: string; signOff?: SignOffInput | null; expectedHead?: string }): ReportBundle {
  const verdict = verifyBundleText(text, options.expectedHead === undefined ? {} : { expectedHead: options.expectedHead });
  if (!verdict.ok) throw new WorkbenchError('invalid-request', `The bundle does not verify: ${describeFailure(verdict.failure)}`);
  return options.signOff ? reverify(serializeBundle(addSignOff(verdict.bundle, options.signOff, options.at))) : verdict.bundle;
}

function reverify(text: string): ReportBundle {
  const verdict = verifyBundleText(text);
  if (!verdict.ok) throw new WorkbenchError('internal', `The bundle just sealed does not verify: ${describeFailure(verdict.failure)}`);
  return verdict.bundle;
}
