import { describe, expect, it } from 'vitest';
import { readStoredRunStart } from '../../../src-main/services/run-start';

/** A request as the version before technique options stored it (services/run-manager.ts then). */
const before = {
  notebookId: 'nb-1',
  connectionId: 'c-1',
  connectionName: 'DQA Locating',
  question: 'Where should SWE place its merchant?',
  rules: '',
  technique: 'pearl',
  mode: 'auto',
  simulatorRules: 'compat',
  whatIf: true,
  known: { country: 'SWE', home: 'baltic_sea' },
  fidelity: 'product',
};

describe('a stored run request', () => {
  it('written before technique options reads into the simulator and the technique options', () => {
    expect(readStoredRunStart({ ...before, actionLibrary: 'lib-7' })).toMatchObject({
      technique: 'pearl',
      simulator: { rules: 'compat', known: { country: 'SWE', home: 'baltic_sea' } },
      techniqueOptions: { actionLibrary: 'lib-7' },
    });
    const dellma = readStoredRunStart({ ...before, technique: 'dellma', dellma: { variant: 'top1', perAction: 4, batch: 8, overlap: 0.25, naiveSamples: 50, selfConsistency: 5 } });
    expect(dellma?.techniqueOptions).toEqual({ variant: 'top1', perAction: 4, batch: 8, overlap: 0.25, naiveSamples: 50, selfConsistency: 5 });
    const plain = readStoredRunStart({ ...before, technique: 'planrag' });
    expect(plain).toMatchObject({ simulator: { rules: 'compat', known: { country: 'SWE', home: 'baltic_sea' } } });
    expect(plain).not.toHaveProperty('techniqueOptions');
    expect(plain).not.toHaveProperty('known');
  });

  it('written today reads as it is, and one of neither shape is refused (null)', () => {
    const today = { ...before, simulatorRules: undefined, known: undefined, simulator: { rules: 'off', known: {} }, techniqueOptions: { actionLibrary: 'seed' } };
    expect(readStoredRunStart(today)).toMatchObject({ simulator: { rules: 'off', known: {} }, techniqueOptions: { actionLibrary: 'seed' } });
    expect(readStoredRunStart({ notebookId: 'nb-1' })).toBeNull();
    expect(readStoredRunStart(null)).toBeNull();
  });
});
