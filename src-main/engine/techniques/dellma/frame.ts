import { parseLikelihood, type BeliefFactor, type FactorSpec, type ForecastFactor } from './belief';

/**
 * The decision frame of a DeLLMa run on a database [SPECS §3.6]: the options and the
 * unknowns. The analyst lists them in the question, one labelled line each:
 *
 *   Options: apple; pear; grape
 *   Unknowns: climate condition; supply chain disruptions
 *
 * Items are separated by `;` (or `,` when the line has no `;`). Without an Options line the
 * simulator's candidates are used (names only). Every option gets a factor of its own, "how
 * <option> turns out" — on DQA that is the model's uncertainty about the value it has not
 * computed [SPECS §3.6(a)]; listed unknowns are shared by every option.
 */
export function listedAfter(label: string, text: string): string[] | null {
  const line = new RegExp(`^\\s*${label}\\s*:\\s*(.+)$`, 'im').exec(text)?.[1];
  if (!line) return null;
  const separator = line.includes(';') ? ';' : ',';
  const items = line.split(separator).map((item) => item.trim().replace(/\.$/, '')).filter(Boolean);
  return items.length ? [...new Set(items)] : null;
}

export function actionFactorName(action: string): string {
  return `how ${action} turns out`;
}

/** `fixed`: per shared unknown, the values the analyst mapped to what-if changes (./whatif-mapping.ts). */
export function frameFactors(actions: readonly string[], shared: readonly string[], fixed: ReadonlyMap<string, readonly string[]> = new Map()): FactorSpec[] {
  return [
    ...shared.map((name): FactorSpec => {
      const values = fixed.get(name);
      return { name, scope: { kind: 'shared' }, ...(values ? { fixedValues: values } : {}) };
    }),
    ...actions.map((action): FactorSpec => ({ name: actionFactorName(action), scope: { kind: 'action', action } })),
  ];
}

/**
 * Reads the analyst's edit of the forecast lines (`factor | value | likelihood`, the form
 * `forecastLines` writes). Every factor must keep at least one value and every likelihood
 * must be a word of the scale; factors not named keep the model's values. Returns the edited
 * factors, or the problems found.
 */
export function readForecastLines(lines: readonly string[], current: readonly BeliefFactor[]): { ok: true; factors: ForecastFactor[] } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  const edited = new Map<string, ForecastFactor['values']>();
  lines.forEach((line, index) => {
    const parts = line.split('|').map((part) => part.trim());
    if (parts.length !== 3 || parts.some((part) => part === '')) {
      problems.push(`line ${index + 1} is not "factor | value | likelihood": ${line}`);
      return;
    }
    const [name, value, label] = parts as [string, string, string];
    if (!current.some((factor) => factor.name === name)) {
      problems.push(`line ${index + 1}: no factor "${name}"`);
      return;
    }
    const likelihood = parseLikelihood(label);
    if (!likelihood) {
      problems.push(`line ${index + 1}: "${label}" is not one of very likely, likely, somewhat likely, somewhat unlikely, unlikely, very unlikely`);
      return;
    }
    const fixed = current.find((factor) => factor.name === name)?.fixedValues;
    if (fixed && !fixed.includes(value)) {
      problems.push(`line ${index + 1}: "${name}" is mapped to what-if changes, so its values are ${fixed.map((known) => `"${known}"`).join(', ')}; "${value}" is not one of them`);
      return;
    }
    const values = edited.get(name) ?? [];
    if (values.some((entry) => entry.value === value)) problems.push(`line ${index + 1}: "${name}" lists "${value}" twice`);
    else edited.set(name, [...values, { value, likelihood }]);
  });
  if (problems.length) return { ok: false, problems };
  return { ok: true, factors: current.map((factor) => ({ name: factor.name, scope: factor.scope, ...(factor.fixedValues ? { fixedValues: factor.fixedValues } : {}), values: edited.get(factor.name) ?? factor.values })) };
}
