import { parseArgs, type ParseArgsConfig } from 'node:util';
import { WorkbenchError } from '../contract/errors';

/**
 * node:util's parseArgs, refusing an option given more than once unless it is a list
 * (`multiple`): parseArgs alone keeps the last value silently, so `--connection A
 * --connection B` would run against B with no word said.
 */
export function parseOptions<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  const parsed = parseArgs(config);
  const { tokens } = parseArgs({ ...config, tokens: true });
  const counts = new Map<string, number>();
  for (const token of tokens ?? []) {
    if (token.kind !== 'option' || config.options?.[token.name]?.multiple === true) continue;
    counts.set(token.name, (counts.get(token.name) ?? 0) + 1);
  }
  for (const [name, count] of counts) {
    if (count > 1) throw new WorkbenchError('invalid-request', `--${name} is given ${count} times: give it once`);
  }
  return parsed;
}
