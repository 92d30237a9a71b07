/**
 * Indexes BuildingData into flat arrays (rows in table order) for the market simulators,
 * validating references once, and works out which goods can influence a target price.
 */
import type { BuildingData, BuildingGoods, BuildingRecord } from './building-data';

export interface Market {
  goods: BuildingGoods[];
  buildings: BuildingRecord[];
  goodsIndexByName: ReadonlyMap<string, number>;
  /** Per supply row (table order): goods index, building index, stored max and output. */
  supplyGoods: Int32Array;
  supplyBuilding: Int32Array;
  supplyMax: Float64Array;
  supplyOutput: Float64Array;
  /** Per demand row (table order): goods index, building index, stored max. */
  demandGoods: Int32Array;
  demandBuilding: Int32Array;
  demandMax: Float64Array;
  /** Row indexes per building, in table order. */
  supplyRowsOf: number[][];
  demandRowsOf: number[][];
  /** pop_demand per goods. */
  popDemand: Float64Array;
  /**
   * Stored building demand per goods (BD0): Σ max_demand in row order (buildings in table
   * order, each building's rows in file order), one addition at a time.
   */
  storedBuildingDemand: Float64Array;
  /** Stored supply per goods (S0): Σ current_output in the same row order. */
  storedSupply: Float64Array;
}

export function prepareMarket(data: BuildingData): Market {
  const goodsIndexByName = new Map<string, number>();
  const goodsIndexByCode = new Map<number, number>();
  data.goods.forEach((goods, index) => {
    if (goodsIndexByCode.has(goods.code)) throw new Error(`goods code ${goods.code} appears twice`);
    if (goodsIndexByName.has(goods.name)) throw new Error(`goods ${goods.name} appears twice`);
    goodsIndexByCode.set(goods.code, index);
    goodsIndexByName.set(goods.name, index);
  });
  const buildingIndexById = new Map<number, number>();
  data.buildings.forEach((building, index) => {
    if (buildingIndexById.has(building.id)) throw new Error(`building ${building.id} appears twice`);
    buildingIndexById.set(building.id, index);
  });
  const goodsOf = (code: number, where: string): number => {
    const index = goodsIndexByCode.get(code);
    if (index === undefined) throw new Error(`${where} refers to unknown goods code ${code}`);
    return index;
  };
  const buildingOf = (id: number, where: string): number => {
    const index = buildingIndexById.get(id);
    if (index === undefined) throw new Error(`${where} refers to unknown building ${id}`);
    return index;
  };

  const supplyRowsOf: number[][] = data.buildings.map(() => []);
  const demandRowsOf: number[][] = data.buildings.map(() => []);
  const supplyGoods = new Int32Array(data.supplies.length);
  const supplyBuilding = new Int32Array(data.supplies.length);
  const supplyMax = new Float64Array(data.supplies.length);
  const supplyOutput = new Float64Array(data.supplies.length);
  data.supplies.forEach((row, i) => {
    supplyGoods[i] = goodsOf(row.goodsCode, `supply row ${i + 1}`);
    supplyBuilding[i] = buildingOf(row.buildingId, `supply row ${i + 1}`);
    supplyMax[i] = row.maxSupply;
    supplyOutput[i] = row.currentOutput;
    (supplyRowsOf[supplyBuilding[i] as number] as number[]).push(i);
  });
  const demandGoods = new Int32Array(data.demands.length);
  const demandBuilding = new Int32Array(data.demands.length);
  const demandMax = new Float64Array(data.demands.length);
  data.demands.forEach((row, i) => {
    demandGoods[i] = goodsOf(row.goodsCode, `demand row ${i + 1}`);
    demandBuilding[i] = buildingOf(row.buildingId, `demand row ${i + 1}`);
    demandMax[i] = row.maxDemand;
    (demandRowsOf[demandBuilding[i] as number] as number[]).push(i);
  });

  const popDemand = Float64Array.from(data.goods, (goods) => goods.popDemand);
  const storedBuildingDemand = new Float64Array(data.goods.length);
  const storedSupply = new Float64Array(data.goods.length);
  for (let building = 0; building < data.buildings.length; building += 1) {
    for (const row of demandRowsOf[building] as number[]) {
      const goods = demandGoods[row] as number;
      storedBuildingDemand[goods] = (storedBuildingDemand[goods] as number) + (demandMax[row] as number);
    }
    for (const row of supplyRowsOf[building] as number[]) {
      const goods = supplyGoods[row] as number;
      storedSupply[goods] = (storedSupply[goods] as number) + (supplyOutput[row] as number);
    }
  }

  return {
    goods: data.goods,
    buildings: data.buildings,
    goodsIndexByName,
    supplyGoods,
    supplyBuilding,
    supplyMax,
    supplyOutput,
    demandGoods,
    demandBuilding,
    demandMax,
    supplyRowsOf,
    demandRowsOf,
    popDemand,
    storedBuildingDemand,
    storedSupply,
  };
}

export function requireGoods(market: Market, name: string): number {
  const index = market.goodsIndexByName.get(name);
  if (index === undefined) throw new Error(`unknown goods ${name}`);
  return index;
}

export function hasInputs(market: Market, building: number): boolean {
  return (market.demandRowsOf[building] as number[]).length > 0;
}

/**
 * Goods whose demand or supply can move the target's price: the target, and (recursively)
 * the inputs of every building with inputs that supplies an influential goods. Output of a
 * building without inputs never depends on other goods, so it adds nothing.
 */
export function influentialGoods(market: Market, target: number): Uint8Array {
  const influential = new Uint8Array(market.goods.length);
  influential[target] = 1;
  const queue = [target];
  for (let head = 0; head < queue.length; head += 1) {
    const goods = queue[head] as number;
    for (let row = 0; row < market.supplyGoods.length; row += 1) {
      if (market.supplyGoods[row] !== goods) continue;
      for (const input of market.demandRowsOf[market.supplyBuilding[row] as number] as number[]) {
        const inputGoods = market.demandGoods[input] as number;
        if (influential[inputGoods] === 0) {
          influential[inputGoods] = 1;
          queue.push(inputGoods);
        }
      }
    }
  }
  return influential;
}

/** Scale factor of max supply and max demand when a building of level `level` gains 5 levels. */
export function expansionFactor(building: BuildingRecord): number {
  if (!(building.level > 0)) throw new Error(`building ${building.id} has level ${building.level}; levels must be positive to scale by (L+5)/L`);
  return (building.level + 5) / building.level;
}

/** The rows a price simulation for one target needs; every other row provably cannot move the target's price. */
export interface RelevantRows {
  influential: Uint8Array;
  /** Supply rows of influential goods, table order. */
  supplyRows: number[];
  /** Demand rows of influential goods, table order. */
  demandRows: number[];
  /** Buildings with inputs that supply influential goods: their output must be recomputed each cycle. */
  producers: number[];
  influentialGoods: number[];
}

/** With `prune` false every goods counts as influential (the unpruned run the pruning is checked against). */
export function relevantRows(market: Market, target: number, prune = true): RelevantRows {
  const influential = prune ? influentialGoods(market, target) : new Uint8Array(market.goods.length).fill(1);
  const supplyRows: number[] = [];
  const producerSet = new Set<number>();
  for (let row = 0; row < market.supplyGoods.length; row += 1) {
    if (influential[market.supplyGoods[row] as number] === 0) continue;
    supplyRows.push(row);
    const building = market.supplyBuilding[row] as number;
    if (hasInputs(market, building)) producerSet.add(building);
  }
  const demandRows: number[] = [];
  for (let row = 0; row < market.demandGoods.length; row += 1) {
    if (influential[market.demandGoods[row] as number] === 1) demandRows.push(row);
  }
  const influentialGoodsList: number[] = [];
  influential.forEach((flag, index) => {
    if (flag === 1) influentialGoodsList.push(index);
  });
  return { influential, supplyRows, demandRows, producers: [...producerSet].sort((a, b) => a - b), influentialGoods: influentialGoodsList };
}

/** True when any row of `building` is on a goods flagged in `goods` (e.g. RelevantRows.influential). */
export function touchesGoods(market: Market, goods: Uint8Array, building: number): boolean {
  return (
    (market.supplyRowsOf[building] as number[]).some((row) => goods[market.supplyGoods[row] as number] === 1) ||
    (market.demandRowsOf[building] as number[]).some((row) => goods[market.demandGoods[row] as number] === 1)
  );
}
