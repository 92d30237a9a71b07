import { dellmaOptionsProblem, dellmaRunSettingsSchema, dellmaVariants, type DellmaRunSettings } from '../../../contract/dellma';
import { WorkbenchError } from '../../../contract/errors';
import { numberOption } from '../../../contract/written-number';
import { declareOptions } from '../technique';

/** A DeLLMa setting as results name it: the variant and the sizes it uses. */
export function dellmaVariantText(settings: DellmaRunSettings): string {
  switch (settings.variant) {
    case 'pairs':
    case 'top1':
      return `${settings.variant}, s=${settings.perAction}, b=${settings.batch}, q=${settings.overlap}`;
    case 'naive':
      return `naive, ${settings.naiveSamples} samples`;
    case 'sc':
      return `sc, ${settings.selfConsistency} answers`;
    default:
      return settings.variant;
  }
}

/** The flag each settings field is given with on the command line. */
const flagOfField: Readonly<Record<string, string>> = { variant: '--variant', perAction: '--samples', naiveSamples: '--samples', batch: '--batch', overlap: '--overlap', selfConsistency: '--sc-answers' };

/**
 * DeLLMa's options are its run settings (`DellmaRunSettings`, contract/dellma.ts: the variant
 * and the sizes), as `dwb dellma solve` names them on the command line. `--samples` is s per
 * option for Pairs and Top-1 and the total for Naive.
 */
export const dellmaOptions = declareOptions<DellmaRunSettings>({
  schema: dellmaRunSettingsSchema,
  flags: [
    { name: 'variant', value: dellmaVariants.join('|'), description: 'The variant to run (absent: pairs).' },
    { name: 'samples', value: 'N', description: 'Sampled states per option (pairs, top1), or the sample size (naive).' },
    { name: 'batch', value: 'B', description: 'Items per ranking minibatch.' },
    { name: 'overlap', value: 'Q', description: 'Share of a minibatch repeated in the next, 0 to 0.9.' },
    { name: 'sc-answers', value: 'K', description: 'Answers a self-consistency (sc) run draws.' },
  ],
  fromFlags: (values) => {
    const variant = values['variant'];
    if (variant !== undefined && !(dellmaVariants as readonly string[]).includes(variant)) throw new WorkbenchError('invalid-request', `--variant: must be one of ${dellmaVariants.join(', ')}, got "${variant}"`);
    const samples = numberOption(values['samples'], '--samples');
    return {
      ...(variant !== undefined ? { variant } : {}),
      ...(samples !== undefined ? (variant === 'naive' ? { naiveSamples: samples } : { perAction: samples }) : {}),
      ...(values['batch'] !== undefined ? { batch: numberOption(values['batch'], '--batch') } : {}),
      ...(values['overlap'] !== undefined ? { overlap: numberOption(values['overlap'], '--overlap') } : {}),
      ...(values['sc-answers'] !== undefined ? { selfConsistency: numberOption(values['sc-answers'], '--sc-answers') } : {}),
    };
  },
  flagOf: (field) => flagOfField[field],
  optionsProblem: (question) => dellmaOptionsProblem(question),
  variantLabel: dellmaVariantText,
});
