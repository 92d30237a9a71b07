/**
 * What produced a results row, in the label/value lines every results file and the Benchmarks
 * view show: each setting with the distinct values its questions' produced-by records hold
 * (one value when the batch ran as one, all of them when it did not), the structured output
 * counted over every call, and the fallbacks taken.
 */
import { producedByLines, structuredOutputText, type ProducedBy } from '../contract/produced-by';

/** Lines that differ per run by nature: summed up below instead of listed value by value. */
const perRun = new Set(['Decided by', 'Structured output', 'Fallbacks']);

export function rowProducedByLines(records: readonly ProducedBy[]): { label: string; value: string }[] {
  if (records.length === 0) return [{ label: 'Produced by', value: 'not recorded (results from before the record was kept)' }];
  const values = new Map<string, string[]>();
  for (const record of records) {
    for (const line of producedByLines(record)) {
      if (perRun.has(line.label)) continue;
      const seen = values.get(line.label) ?? [];
      if (!seen.includes(line.value)) seen.push(line.value);
      values.set(line.label, seen);
    }
  }
  const lines = [...values].map(([label, seen]) => ({ label, value: seen.join(' | ') }));
  lines.push({ label: 'Structured output', value: structuredOutputText(records.flatMap((record) => record.structuredOutput)) });
  const fellBack = records.filter((record) => record.fallbacks.length > 0);
  const reasons = [...new Set(fellBack.flatMap((record) => record.fallbacks.map((fallback) => `${fallback.from} → ${fallback.to} ${fallback.reason}`)))];
  lines.push({ label: 'Fallbacks', value: fellBack.length === 0 ? 'none' : `${fellBack.length} of ${records.length} runs: ${reasons.join('; ')}` });
  return lines;
}
