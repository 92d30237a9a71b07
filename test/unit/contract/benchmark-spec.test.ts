import { describe, expect, it } from 'vitest';
import { readStoredBenchmarkSpec } from '../../../src-main/contract/benchmarks';

const base = { questionsFile: '/q.json', techniques: ['dellma', 'planrag'], dbs: ['rdb'], concurrency: 1, maxSteps: 20, fidelity: 'paper' };

describe('a stored benchmark spec', () => {
  it('reads technique options as stored', () => {
    expect(readStoredBenchmarkSpec({ ...base, techniqueOptions: { dellma: { variant: 'top1' } } }).techniqueOptions).toEqual({ dellma: { variant: 'top1' } });
  });

  it('reads the top-level dellma of a spec stored before technique options as DeLLMa’s options', () => {
    const read = readStoredBenchmarkSpec({ ...base, dellma: { variant: 'pairs', perAction: 2 } });
    expect(read.techniqueOptions).toEqual({ dellma: { variant: 'pairs', perAction: 2 } });
    expect(read).not.toHaveProperty('dellma');
    expect(readStoredBenchmarkSpec({ ...base, dellma: undefined })).not.toHaveProperty('techniqueOptions');
  });

  it('keeps the newer options where a spec has both, and refuses one that is no spec', () => {
    expect(readStoredBenchmarkSpec({ ...base, dellma: { variant: 'naive' }, techniqueOptions: { dellma: { variant: 'top1' } } }).techniqueOptions).toEqual({ dellma: { variant: 'top1' } });
    expect(() => readStoredBenchmarkSpec({ dellma: {} })).toThrow(/questionsFile/);
  });
});
