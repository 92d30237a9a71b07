import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { normaliseFactor, type BeliefFactor } from '../../../src-main/engine/techniques/dellma/belief';
import { jsonForecastStore } from '../../../src-main/engine/techniques/dellma/forecast-store';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();

const factor: BeliefFactor = normaliseFactor({ name: 'climate', scope: { kind: 'shared' }, values: [{ value: 'dry', likelihood: 'likely' }, { value: 'wet', likelihood: 'unlikely' }, { value: 'mild', likelihood: 'somewhat likely' }] });

describe('the DeLLMa forecast store', () => {
  it('gives back what a run put under its key, with the run and time, and nothing for another key', () => {
    const path = join(tempDir(), 'nested', 'forecasts.json');
    jsonForecastStore(path, 'run-1', () => new Date('2026-01-02T03:04:05Z')).put('k1', [factor]);
    const later = jsonForecastStore(path, 'run-2');
    expect(later.get('k1')).toEqual({ runId: 'run-1', savedAt: '2026-01-02T03:04:05.000Z', factors: [factor] });
    expect(later.get('k2')).toBeNull();
  });

  it('treats an unreadable file as empty and replaces it on the next put', () => {
    const path = join(tempDir(), 'forecasts.json');
    writeFileSync(path, '{not json');
    const store = jsonForecastStore(path, 'run-3');
    expect(store.get('k1')).toBeNull();
    store.put('k1', [factor]);
    expect(Object.keys(JSON.parse(readFileSync(path, 'utf8')) as object)).toEqual(['k1']);
  });
});
