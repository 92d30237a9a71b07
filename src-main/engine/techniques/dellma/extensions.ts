import type { RunExtension } from '../../../contract/fidelity';

/**
 * DeLLMa's product extension. The paper writes factor templates per environment (agriculture,
 * stocks); a database has none, so this stays on at paper fidelity, still labelled.
 */
export const dellmaOptionFactors = {
  id: 'dellma-option-factors',
  label: 'DeLLMa: a factor per option on a database',
  adds: 'Each option gets an unknown of its own, "how <option> turns out", beside the unknowns the question lists.',
  paperInstead: "Hand-written factor templates per environment (agriculture, stocks); a database has none, so it stays on at paper fidelity (off: only the question's listed unknowns).",
  paper: true,
  product: true,
} as const satisfies RunExtension;
