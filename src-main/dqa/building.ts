/**
 * Building scenario (Victoria 3 market): which building, raised by 5 levels, lowers the
 * price of a goods the most? Pure data-in/data-out.
 */
import type { BuildingData, BuildingQuestionInput } from './building-data';
import { evaluateBuildingCompat, evaluateBuildingCompatTogether } from './building-compat';
import { prepareMarket, type Market } from './building-market';
import { evaluateBuildingStated } from './building-stated';
import { decide, type Evaluation } from './decision-ranking';
import type { DecisionResult, SolveOptions } from './simulation';

export type { BuildingData, BuildingGoods, BuildingQuestionInput, BuildingRecord, DemandRecord, SupplyRecord } from './building-data';

/** Accepts raw data, or a market prepared once with prepareMarket when many questions share one database. */
export function solveBuilding(data: BuildingData | Market, question: BuildingQuestionInput, options: SolveOptions): DecisionResult {
  const market = 'storedBuildingDemand' in data ? data : prepareMarket(data);
  const compat = options.rules === 'compat';
  const evaluation = compat ? evaluateBuildingCompat(market, question.goods) : evaluateBuildingStated(market, question.goods);
  return decideBuilding(evaluation, question, options);
}

/**
 * Several questions on one market, each with the result `solveBuilding` gives it: under
 * compat rules the candidates are simulated once for all the goods (evaluateBuildingCompatTogether).
 */
export function solveBuildingTogether(market: Market, questions: readonly BuildingQuestionInput[], options: SolveOptions): DecisionResult[] {
  if (options.rules !== 'compat') return questions.map((question) => solveBuilding(market, question, options));
  const evaluations = evaluateBuildingCompatTogether(
    market,
    questions.map((question) => question.goods),
  );
  return evaluations.map((evaluation, index) => decideBuilding(evaluation, questions[index] as BuildingQuestionInput, options));
}

function decideBuilding(evaluation: Evaluation, question: BuildingQuestionInput, options: SolveOptions): DecisionResult {
  const compat = options.rules === 'compat';
  return decide({
    ...evaluation,
    direction: 'minimize',
    tieBreak: compat ? 'first-strictly-best' : 'first-within-tolerance',
    objective: `new price of ${question.goods} after +5 levels (minimize; ${options.rules} rules)`,
    // The annotation only accepted a building whose price is strictly below the stored one.
    ...(compat ? { mustBeat: evaluation.before } : {}),
  });
}

export { prepareMarket };
