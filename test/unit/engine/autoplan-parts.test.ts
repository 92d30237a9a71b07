import { describe, expect, it } from 'vitest';
import { formalizeFast, actionText } from '../../../src-main/engine/techniques/autoplan/formalizer';
import { batches, findSpecifics, parseSplit, playbookSteps, sealVersion, splitIds, versionHash } from '../../../src-main/engine/techniques/autoplan/playbook';
import { jobMessage } from '../../../src-main/engine/techniques/autoplan/prompts';

describe('AutoPlan formalizer fast path', () => {
  it.each([
    ['Query[SELECT name FROM trade_node]', { kind: 'query', text: 'SELECT name FROM trade_node' }],
    ['Action: Query[SELECT a FROM t WHERE b IN (1, 2)]', { kind: 'query', text: 'SELECT a FROM t WHERE b IN (1, 2)' }],
    ['query [MATCH (n:Node) WHERE n.tags = [1, 2] RETURN n.name]', { kind: 'query', text: 'MATCH (n:Node) WHERE n.tags = [1, 2] RETURN n.name' }],
    ['Query[```sql\nSELECT 1\n```]', { kind: 'query', text: 'SELECT 1' }],
    ['Finish[krakow]', { kind: 'finish', decision: 'krakow' }],
    ['I am sure now. Finish[ 1485 ]', { kind: 'finish', decision: '1485' }],
    ['Query[SELECT 1] then Finish[krakow]', { kind: 'query', text: 'SELECT 1' }],
    ['Finish[krakow] Query[SELECT 1]', { kind: 'finish', decision: 'krakow' }],
    ['Query: SELECT * FROM flow\nQuery: SELECT * FROM node', { kind: 'query', text: 'SELECT * FROM flow' }],
    ['finish: rheinland\nbecause it is best', { kind: 'finish', decision: 'rheinland' }],
    ['Query[SELECT a FROM t', { kind: 'query', text: 'SELECT a FROM t' }],
  ])('%j → %j', (raw, expected) => {
    expect(formalizeFast(raw)).toEqual(expected);
  });

  it.each([['I will run SELECT name FROM trade_node to see the nodes'], ['The answer is krakow'], ['Query[]'], ['']])('%j needs the formalizer call', (raw) => {
    expect(formalizeFast(raw)).toBeNull();
  });

  it('writes actions back in the canonical syntax', () => {
    expect(actionText({ kind: 'query', text: 'SELECT 1' })).toBe('Query[SELECT 1]');
    expect(actionText({ kind: 'finish', decision: 'x' })).toBe('Finish[x]');
  });
});

describe('AutoPlan playbook versions', () => {
  it('flags names and distinctive values of the training questions, not general words', () => {
    const playbook = '1. List the trade nodes downstream of the home node.\n2. Compare Baltic Sea with krakow.\n3. Note the ingoing value 123.456.';
    expect(findSpecifics(playbook, ['baltic_sea', 'krakow', 'home', 'rheinland', '12'], [123.456, 3])).toEqual(['123.456', 'baltic_sea', 'home', 'krakow']);
    expect(findSpecifics('1. Query the downstream nodes.\n2. Step 12 of 3.', ['krakow', '12'], [3, 7])).toEqual([]);
  });

  it('splits and batches deterministically from a seed', () => {
    const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'];
    const first = splitIds(ids, 7, 0.8);
    expect(splitIds(ids, 7, 0.8)).toEqual(first);
    expect(first.train).toHaveLength(8);
    expect([...first.train, ...first.heldOut].sort()).toEqual(ids);
    expect(splitIds(ids, 8, 0.8).train).not.toEqual(first.train);
    expect(batches(first.train, 4)).toEqual([first.train.slice(0, 4), first.train.slice(4)]);
    expect(batches(ids, 4, 2)).toEqual([['a', 'b', 'c', 'd'], ['e', 'f', 'g', 'h']]);
    expect(batches(ids, 4)).toHaveLength(3);
    expect(parseSplit('7:0.5')).toEqual({ seed: 7, fraction: 0.5 });
    expect(() => parseSplit('7')).toThrow(/SEED:TRAIN_FRACTION/);
    expect(() => parseSplit('7:1.5')).toThrow(/SEED:TRAIN_FRACTION/);
  });

  it('hashes the canonical JSON of a version, independent of key order', () => {
    const body = {
      format: 'decision-workbench/playbook-version' as const,
      version: 1 as const,
      taskType: { scenario: 'locating', db: 'rdb' },
      index: 1,
      parent: null,
      playbook: '1. a',
      previous: '',
      batch: { questionIds: ['L1'] },
      jobs: [],
      successRate: 0,
      cost: { calls: 1, promptTokens: 2, completionTokens: 3 },
      settings: { model: 'm', batchSize: 4, temperature: 0.7, reflection: 'sir' as const, maxActions: 10, split: null },
      specifics: [],
      review: { status: 'proposed' as const, pinned: false },
    };
    const sealed = sealVersion(body);
    expect(sealed.hash).toMatch(/^[0-9a-f]{64}$/);
    const reordered = Object.fromEntries(Object.entries(body).reverse()) as typeof body;
    expect(versionHash(reordered)).toBe(sealed.hash);
    expect(versionHash({ ...body, playbook: '1. b' })).not.toBe(sealed.hash);
  });

  it('places the playbook between the business rules and the question, only when there is one', () => {
    const withPlaybook = jobMessage('RULES', '1. step', 'QUESTION?');
    expect(withPlaybook.indexOf('# Business rules')).toBeLessThan(withPlaybook.indexOf('# Playbook'));
    expect(withPlaybook.indexOf('# Playbook')).toBeLessThan(withPlaybook.indexOf('# Question'));
    expect(jobMessage('RULES', '  ', 'QUESTION?')).not.toContain('# Playbook');
    expect(playbookSteps('1. find\n2) compare\n- answer')).toEqual(['find', 'compare', 'answer']);
  });
});
