/**
 * The Building scenario's data in a neutral in-memory shape, independent of where it came
 * from (relational dump, graph dump, or a live database through a connector). Arrays keep
 * the source's table/file order: sums are taken in that order and ties follow it.
 */

/** A row of `goods` / a `(:Goods)` node. `current_price` is the stored market state. */
export interface BuildingGoods {
  name: string;
  code: number;
  basePrice: number;
  currentPrice: number;
  popDemand: number;
}

/** A row of `building` / a `(:Building)` node. */
export interface BuildingRecord {
  id: number;
  name: string;
  level: number;
}

/** A row of `supply` / a `(:Building)-[:Supply]->(:Goods)` relationship: what a building produces. */
export interface SupplyRecord {
  goodsCode: number;
  buildingId: number;
  maxSupply: number;
  currentOutput: number;
  level: number;
}

/** A row of `demand` / a `(:Goods)-[:Demand]->(:Building)` relationship: what a building consumes. */
export interface DemandRecord {
  goodsCode: number;
  buildingId: number;
  maxDemand: number;
  currentInput: number;
  level: number;
}

export interface BuildingData {
  goods: BuildingGoods[];
  buildings: BuildingRecord[];
  supplies: SupplyRecord[];
  demands: DemandRecord[];
}

/** The question being decided: which building, raised by 5 levels, lowers the price of `goods` the most? */
export interface BuildingQuestionInput {
  /** Goods name, e.g. "furniture". */
  goods: string;
}
