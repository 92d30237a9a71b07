import { describe, expect, it } from 'vitest';
import { matchDecision, normalizeName } from '../../../src-main/benchmark/candidate-match';

const nodes = ['krakow', 'baltic_sea', 'north_sea', 'novgorod', 'sea'];
const buildings = ['1485', '1445', '14850'];

describe('matching a decision to the simulator candidates', () => {
  it.each([
    // raw, candidates, matched, rule
    ['krakow', nodes, 'krakow', 'exact'],
    ['Krakow', nodes, 'krakow', 'normalized'],
    ['  KRAKOW.  ', nodes, 'krakow', 'normalized'],
    ['"krakow"', nodes, 'krakow', 'normalized'],
    ['Baltic Sea', nodes, 'baltic_sea', 'normalized'],
    ['baltic  sea', nodes, 'baltic_sea', 'normalized'],
    ['Trade node: Novgorod', nodes, 'novgorod', 'contained'],
    ['the north sea node', nodes, 'north_sea', 'contained'],
    ['1485', buildings, '1485', 'exact'],
    [' 1485 ', buildings, '1485', 'normalized'],
    ['Building 1485', buildings, '1485', 'contained'],
    ['building_id=14850', buildings, '14850', 'contained'],
    ['atlantis', nodes, null, 'none'],
    ['148', buildings, null, 'none'],
    ['krakow or novgorod', nodes, null, 'ambiguous'],
    ['', nodes, null, 'no-decision'],
  ] as const)('%j → %s (%s)', (raw, candidates, matched, rule) => {
    const match = matchDecision(raw, candidates);
    expect(match.matched).toBe(matched);
    expect(match.rule).toBe(rule);
    expect(match.raw).toBe(raw);
  });

  it('says which candidates an ambiguous answer could mean, and leaves a null decision unmatched', () => {
    expect(matchDecision('krakow or novgorod', nodes).alternatives).toEqual(['krakow', 'novgorod']);
    expect(matchDecision(null, nodes)).toEqual({ raw: null, matched: null, rule: 'no-decision', alternatives: [] });
  });

  it('does not read a long explanation as a name', () => {
    const essay = `After weighing every upstream node carefully I believe the merchant belongs in krakow because ${'of the flows '.repeat(5)}`;
    expect(matchDecision(essay, nodes).rule).toBe('none');
  });

  it('normalizes case, edge punctuation and spacing only', () => {
    expect(normalizeName(' Baltic-Sea! ')).toBe('baltic_sea');
    expect(normalizeName('(1485)')).toBe('1485');
  });

  it.each([
    'not krakow',
    'Not Krakow.',
    'krakow is not the right node',
    "krakow isn't it",
    'anything but krakow',
    'avoid krakow',
    'instead of krakow',
    'krakow: rather than this, wait',
    'anywhere except krakow',
    'never krakow',
    'other than krakow',
    'do not use krakow',
    'building 1485 is not worth it',
  ])('refuses a negated name: %j', (raw) => {
    const match = matchDecision(raw, [...nodes, ...buildings]);
    expect(match.matched).toBeNull();
    expect(match.rule).toBe('negated');
    expect(match.alternatives.length).toBeGreaterThan(0);
  });

  it.each(['krakow, novgorod', 'krakow and novgorod', 'novgorod then krakow', 'Building 1485 or 1445', 'krakow (not novgorod)'])('credits no candidate for an answer naming several: %j', (raw) => {
    const match = matchDecision(raw, [...nodes, ...buildings]);
    expect(match.matched).toBeNull();
    expect(['ambiguous', 'negated']).toContain(match.rule);
  });

  it('still reads a label with "no." as a label, and a name that merely contains a negation word', () => {
    expect(matchDecision('building no. 1485', buildings)).toMatchObject({ matched: '1485', rule: 'contained' });
    expect(matchDecision('nottingham', ['nottingham', 'krakow'])).toMatchObject({ matched: 'nottingham', rule: 'exact' });
    expect(matchDecision('trade node: nottingham', ['nottingham', 'krakow'])).toMatchObject({ matched: 'nottingham', rule: 'contained' });
  });
});
