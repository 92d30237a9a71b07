import type { BenchmarkSpec } from '../contract/benchmarks';
import { WorkbenchError } from '../contract/errors';
import { techniqueNamed } from '../engine/techniques/registry';
import { checkedTechniqueOptions } from '../engine/techniques/technique-options';

/**
 * A benchmark spec's technique options, each checked by its technique's own schema (an
 * `invalid-request` naming the technique and the field, as `runs/start` refuses one run's) and
 * read with its defaults; undefined when the spec gives none. Options for a technique the
 * benchmark does not run are refused rather than silently unused.
 */
export function checkedBenchmarkOptions(spec: Pick<BenchmarkSpec, 'techniques' | 'techniqueOptions'>): Record<string, Record<string, unknown>> | undefined {
  if (!spec.techniqueOptions) return undefined;
  const checked: Record<string, Record<string, unknown>> = {};
  for (const [id, given] of Object.entries(spec.techniqueOptions)) {
    const technique = techniqueNamed(id);
    if (!spec.techniques.includes(id)) throw new WorkbenchError('invalid-request', `Options for ${technique.label} (${id}), which this benchmark does not run`);
    const options = checkedTechniqueOptions(technique, given);
    if (options) checked[id] = options;
  }
  return Object.keys(checked).length ? checked : undefined;
}
