import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src-main/audit/canonical-json';
import { matchDecision } from '../../../src-main/benchmark/candidate-match';
import { appearsIn, type CriticalValue } from '../../../src-main/benchmark/critical-values';
import { classifyFailure } from '../../../src-main/benchmark/failure-category';
import { readRunFacts } from '../../../src-main/benchmark/run-facts';
import type { RunEvent } from '../../../src-main/contract/run';
import { RunLog } from '../../../src-main/engine/run-log';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();
const candidates = ['krakow', 'novgorod', 'lubeck'];
const critical: CriticalValue[] = [
  { label: 'ingoing of krakow (IV)', value: 3.2146 },
  { label: 'total_power of krakow (TPtotal)', value: 412.75 },
];

/** A run log written the way the engine writes one (hash-chained canonical JSON lines). */
function crafted(events: RunEvent[], extraLines: string[] = []): string {
  const path = join(tempDir(), 'run-log.jsonl');
  writeFileSync(path, '');
  const log = new RunLog('run-crafted', () => '2026-01-01T00:00:00.000Z');
  log.onEntry((entry) => appendFileSync(path, `${canonicalJson(entry)}\n`));
  for (const event of events) log.append(event);
  for (const line of extraLines) appendFileSync(path, `${line}\n`);
  return path;
}

const usage = { promptTokens: 100, completionTokens: 20, totalTokens: 120 };
const response = (step: number): RunEvent => ({ type: 'model-response', step, content: '', toolCalls: [], usage, latencyMs: 5 });
const query = (step: number, id: string, text: string, outcome: { rows: [string, number][] } | { error: string }): RunEvent[] => [
  { type: 'query-start', step, queryId: id, query: text, author: 'model' },
  'error' in outcome
    ? { type: 'query-end', step, queryId: id, result: null, error: { name: 'WorkbenchError', code: 'query-failed', message: outcome.error, retryable: false }, digest: null }
    : {
        type: 'query-end',
        step,
        queryId: id,
        result: { columns: [{ name: 'name', type: 'TEXT' }, { name: 'value', type: 'REAL' }], rows: outcome.rows, rowCount: outcome.rows.length, truncated: false, elapsedMs: 1 },
        error: null,
        digest: 'x',
      },
  { type: 'observation', step, queryId: id, text: 'error' in outcome ? `Query failed: ${outcome.error}` : `rows: ${outcome.rows.length} (complete)\nname | value\n${outcome.rows.map((row) => row.join(' | ')).join('\n')}` },
];
const decision = (step: number, text: string): RunEvent => ({ type: 'decision', step, decision: text, rationale: 'because', evidence: [] });
const end = (status: 'answered' | 'step-limit', steps: number): RunEvent => ({ type: 'run-end', status, message: status === 'answered' ? null : 'The step limit of 3 model calls was reached', steps, totalTokens: steps * 120 });

function classify(path: string, answer: string | null, best = 'krakow') {
  const facts = readRunFacts(path);
  const match = matchDecision(answer, candidates);
  return classifyFailure({ correct: match.matched === best, match, candidateCount: candidates.length, rank: match.matched === null ? null : 2, facts, critical });
}

describe('failure categories from run logs', () => {
  it('leaves a right decision without a category', () => {
    const path = crafted([response(1), ...query(1, 'q1', 'SELECT …', { rows: [['krakow', 412.75]] }), response(2), decision(2, 'krakow'), end('answered', 2)]);
    expect(classify(path, 'krakow')).toEqual({ category: null, automatic: true, evidence: [] });
  });

  it('CAN: a decision outside the candidate set', () => {
    const path = crafted([response(1), decision(1, 'atlantis'), end('answered', 1)]);
    const label = classify(path, 'atlantis');
    expect(label.category).toBe('CAN');
    expect(label.evidence[0]).toBe('the decision "atlantis" is not one of the 3 candidates');
  });

  it('QUR: a failed query no later query recovered from; a recovered one does not count', () => {
    const unrecovered = crafted([
      response(1), ...query(1, 'q1', 'SELECT total_power FROM trade_node', { rows: [['krakow', 412.75]] }),
      response(2), ...query(2, 'q2', 'SELECT nope FROM nowhere', { error: 'no such table: nowhere' }),
      response(3), decision(3, 'novgorod'), end('answered', 3),
    ]);
    const label = classify(unrecovered, 'novgorod');
    expect(label.category).toBe('QUR');
    expect(label.evidence).toEqual(['query q2 failed and no later query succeeded: no such table: nowhere', 'query: SELECT nope FROM nowhere', '1 of 2 queries failed']);

    const recovered = crafted([
      response(1), ...query(1, 'q1', 'SELECT nope FROM nowhere', { error: 'no such table: nowhere' }),
      response(2), ...query(2, 'q2', 'SELECT ingoing, total_power FROM trade_node', { rows: [['ingoing', 3.2146], ['total', 412.75]] }),
      response(3), decision(3, 'novgorod'), end('answered', 3),
    ]);
    expect(classify(recovered, 'novgorod').category).toBe('unlabelled');
  });

  it('MIS: a critical value that never appears in any observation', () => {
    const path = crafted([response(1), ...query(1, 'q1', 'SELECT …', { rows: [['krakow', 412.75]] }), response(2), decision(2, 'novgorod'), end('answered', 2)]);
    const label = classify(path, 'novgorod');
    expect(label.category).toBe('MIS');
    expect(label.evidence).toEqual(['ingoing of krakow (IV) = 3.2146 never appears in any observation', 'total_power of krakow (TPtotal) = 412.75 was seen']);
  });

  it('OTH: the run ended at a limit without a decision; unreadable lines are counted, not fatal', () => {
    const path = crafted([response(1), ...query(1, 'q1', 'SELECT …', { rows: [['a', 3.2146], ['b', 412.75]] }), response(2), response(3), end('step-limit', 3)], ['not json', '{"event":{"type":"mystery"}}']);
    const facts = readRunFacts(path);
    expect(facts.unreadableLines).toBe(2);
    expect(facts.steps).toBe(3);
    expect(facts.promptTokens).toBe(300);
    expect(facts.completionTokens).toBe(60);
    const label = classify(path, null);
    expect(label.category).toBe('OTH');
    expect(label.evidence[0]).toBe('the run ended step-limit without a decision: The step limit of 3 model calls was reached');
  });

  it('leaves a wrong decision on retrieved data unlabelled for the analyst, with what was seen', () => {
    const path = crafted([response(1), ...query(1, 'q1', 'SELECT …', { rows: [['iv', 3.21], ['tp', 412.750000001]] }), response(2), decision(2, 'Novgorod'), end('answered', 2)]);
    const label = classify(path, 'Novgorod');
    expect(label).toEqual({
      category: 'unlabelled',
      automatic: false,
      evidence: ['decided novgorod, ranked 2 of 3 by the simulator', 'critical values seen: ingoing of krakow (IV); total_power of krakow (TPtotal)'],
    });
  });

  it('finds a critical value printed in full or rounded, never by a coarse coincidence', () => {
    expect(appearsIn(3.2146, 'value | 3.2146')).toBe(true);
    expect(appearsIn(3.2146, 'value | 3.21')).toBe(true);
    expect(appearsIn(3.2146, 'value | 3')).toBe(false);
    expect(appearsIn(1234.5, 'total: 1.2345e3')).toBe(true);
    expect(appearsIn(412.75, 'rows: 412')).toBe(false);
  });

  it('MIS allows for the rounding shown: a value retrieved to k decimals is the true value rounded to k decimals', () => {
    expect(appearsIn(3.2146, 'ROUND(ingoing, 1) | 3.2')).toBe(true);
    expect(appearsIn(3.2146, 'value | 3.215')).toBe(true);
    expect(appearsIn(3.25, 'value | 3.3')).toBe(true);
    expect(appearsIn(87.96, 'total_power: 88.0')).toBe(true);
    // Another value at the same precision is not the critical value.
    expect(appearsIn(3.2146, 'value | 3.3')).toBe(false);
    expect(appearsIn(3.2146, 'value | 3.1')).toBe(false);
    expect(appearsIn(3.2146, 'value | 3.22')).toBe(false);
    expect(appearsIn(87.96, 'total_power: 88')).toBe(false);
  });

  it('MIS is not set for a critical value the run retrieved rounded to one decimal, and is for another value at that precision', () => {
    const rounded = crafted([response(1), ...query(1, 'q1', 'SELECT trade_node, ROUND(ingoing, 1) …', { rows: [['krakow', 3.2], ['krakow', 412.8]] }), response(2), decision(2, 'novgorod'), end('answered', 2)]);
    const label = classify(rounded, 'novgorod');
    expect(label.category).toBe('unlabelled');
    expect(label.evidence).toContain('critical values seen: ingoing of krakow (IV); total_power of krakow (TPtotal)');
    const other = crafted([response(1), ...query(1, 'q1', 'SELECT …', { rows: [['krakow', 3.3], ['krakow', 412.6]] }), response(2), decision(2, 'novgorod'), end('answered', 2)]);
    expect(classify(other, 'novgorod').category).toBe('MIS');
  });

  it('CAN, not a right decision: an answer that negates the best candidate', () => {
    const path = crafted([response(1), ...query(1, 'q1', 'SELECT …', { rows: [['krakow', 3.2146]] }), response(2), decision(2, 'not krakow'), end('answered', 2)]);
    const label = classify(path, 'not krakow');
    expect(label.category).toBe('CAN');
    expect(label.evidence[0]).toBe('the decision "not krakow" negates or sets aside krakow instead of choosing a candidate');
  });
});
