/**
 * The simulators (compat and stated) skip candidates (and goods / nodes) they can prove cannot change the
 * objective. This checks the proof on data: on every dev question, from both dump kinds, the
 * pruned evaluation gives bit-identical objective values to simulating every candidate over
 * every row.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BuildingData } from '../../../src-main/dqa/building-data';
import { evaluateBuildingCompat } from '../../../src-main/dqa/building-compat';
import { evaluateBuildingStated } from '../../../src-main/dqa/building-stated';
import { prepareMarket, type Market } from '../../../src-main/dqa/building-market';
import { readBuildingQuestions, readDumpText, readLocatingQuestions } from '../../../src-main/dqa/dataset';
import type { CandidateValue, Evaluation } from '../../../src-main/dqa/decision-ranking';
import { loadBuildingDump, loadLocatingDump, type DumpKind } from '../../../src-main/dqa/load';
import { evaluateLocatingCompat } from '../../../src-main/dqa/locating-compat';
import { evaluateLocatingStated } from '../../../src-main/dqa/locating-stated';
import { prepareTradeGraph, type TradeGraph } from '../../../src-main/dqa/locating-graph';
import { dqaRoot } from '../../support/fixtures';

const kinds: DumpKind[] = ['relational', 'graph'];

/** Stated Locating counts (node, steering destination) simulations instead of skipped candidates. */
const simulations = (evaluation: Evaluation): number => Number(/(\d+) \(node, steering destination\) simulations/.exec(evaluation.candidateSet)?.[1] ?? 0);

function memo<T>(load: (dump: string) => T): (dump: string) => T {
  const cache = new Map<string, T>();
  return (dump) => {
    let value = cache.get(dump);
    if (value === undefined) {
      value = load(dump);
      cache.set(dump, value);
    }
    return value;
  };
}

/** Candidates whose pruned value differs from the unpruned one in any bit, as readable lines. */
function differences(id: string, pruned: Evaluation, unpruned: Evaluation): string[] {
  expect(pruned.values.map((v) => v.candidate)).toEqual(unpruned.values.map((v) => v.candidate));
  const found: string[] = [];
  pruned.values.forEach((value: CandidateValue, index) => {
    const full = (unpruned.values[index] as CandidateValue).after;
    if (!Object.is(value.after, full)) found.push(`${id} ${value.candidate}: pruned ${value.after}, unpruned ${full}`);
  });
  return found;
}

const cases = kinds.flatMap((kind) => (['compat', 'stated'] as const).map((rules) => ({ kind, rules })));

describe.each(cases)('$rules pruning on the dev subset from $kind dumps', ({ kind, rules }) => {
  it('Building: every candidate of all 36 questions gets the same price pruned and unpruned', () => {
    const root = dqaRoot();
    const questions = readBuildingQuestions(root);
    const marketOf = memo((dump): Market => prepareMarket(loadBuildingDump(readDumpText(root, 'building', dump), kind, dump)));
    const found: string[] = [];
    let skipped = 0;
    for (const question of questions) {
      const market = marketOf(kind === 'relational' ? question.rdb : question.gdb);
      const evaluate = rules === 'compat' ? evaluateBuildingCompat : evaluateBuildingStated;
      const pruned = evaluate(market, question.goods);
      const unpruned = evaluate(market, question.goods, { prune: false });
      expect(unpruned.values.every((v) => Number.isFinite(v.after))).toBe(true);
      found.push(...differences(question.id, pruned, unpruned));
      skipped += Number(/(\d+) proven unchanged/.exec(pruned.candidateSet)?.[1] ?? 0);
    }
    expect(questions).toHaveLength(36);
    expect(found).toEqual([]);
    // The check means something only if the pruning skips candidates.
    expect(skipped).toBeGreaterThan(0);
  });

  it('Locating: every candidate of all 81 questions gets the same profit pruned and unpruned', () => {
    const root = dqaRoot();
    const questions = readLocatingQuestions(root);
    const graphOf = memo((dump): TradeGraph => prepareTradeGraph(loadLocatingDump(readDumpText(root, 'locating', dump), kind, dump)));
    const found: string[] = [];
    let skipped = 0;
    for (const question of questions) {
      const graph = graphOf(kind === 'relational' ? question.rdb : question.gdb);
      const evaluate = rules === 'compat' ? evaluateLocatingCompat : evaluateLocatingStated;
      const pruned = evaluate(graph, question.country, question.home);
      const unpruned = evaluate(graph, question.country, question.home, { prune: false });
      expect(unpruned.values.every((v) => Number.isFinite(v.after))).toBe(true);
      found.push(...differences(question.id, pruned, unpruned));
      skipped += rules === 'compat' ? Number(/(\d+) proven unchanged/.exec(pruned.candidateSet)?.[1] ?? 0) : simulations(unpruned) - simulations(pruned);
    }
    expect(questions).toHaveLength(81);
    expect(found).toEqual([]);
    expect(skipped).toBeGreaterThan(0);
  });
});

describe('compat Building pruning on generated markets', () => {
  /** Magnitudes far apart, so that the order of additions shows in the last bits. */
  const amount = fc.oneof(fc.constantFrom(0.1, 1, 3, 7.25, 1e3, 1e8, 1e16, 3e16), fc.double({ min: 0.01, max: 1e6, noNaN: true }));

  it('gives bit-identical prices to the unpruned simulation (random markets of a few goods and buildings)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 6 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(), amount, amount), { maxLength: 12 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(), amount), { maxLength: 12 }),
        fc.array(fc.tuple(amount, amount, amount), { minLength: 4, maxLength: 4 }),
        (goodsCount, levels, supplies, demands, prices) => {
          const goods = Array.from({ length: goodsCount }, (_, code) => {
            const [base, current, pop] = prices[code] as [number, number, number];
            return { name: `g${code}`, code, basePrice: base, currentPrice: current, popDemand: code === 0 ? pop : 0 };
          });
          const buildings = levels.map((level, id) => ({ id, name: `b${id}`, level }));
          const seen = new Set<string>();
          const data: BuildingData = {
            goods,
            buildings,
            supplies: supplies.flatMap(([g, b, max, output]) => {
              const key = `s${g % goodsCount},${b % buildings.length}`;
              if (seen.has(key)) return [];
              seen.add(key);
              return [{ goodsCode: g % goodsCount, buildingId: b % buildings.length, maxSupply: max, currentOutput: output, level: 1 }];
            }),
            demands: demands.flatMap(([g, b, max]) => {
              const key = `d${g % goodsCount},${b % buildings.length}`;
              if (seen.has(key)) return [];
              seen.add(key);
              return [{ goodsCode: g % goodsCount, buildingId: b % buildings.length, maxDemand: max, currentInput: 0, level: 1 }];
            }),
          };
          const market = prepareMarket(data);
          for (const target of goods) {
            const pruned = evaluateBuildingCompat(market, target.name);
            const unpruned = evaluateBuildingCompat(market, target.name, { prune: false });
            expect(differences(target.name, pruned, unpruned)).toEqual([]);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
