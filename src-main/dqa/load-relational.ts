/**
 * Relational dump (parsed `DumpTable[]`) -> LocatingData / BuildingData. Rows keep table
 * order. Column names are matched case-insensitively; a missing table or column is an error
 * naming what was expected.
 */
import type { BuildingData } from './building-data';
import type { LocatingData } from './locating-data';
import { DqaDataError, readBoolean, readInteger, readNumber, readText } from './load-values';
import type { DumpValue } from './sql-dump';

/**
 * What the mappers need of a table: a parsed dump's DumpTable fits, and so does a table read
 * through a connector (see connector-sql-load.ts).
 */
export interface TableRows {
  name: string;
  columns: readonly { name: string }[];
  /** In column order, in table order. */
  rows: readonly (readonly DumpValue[])[];
}

type RowReader = (column: string) => DumpValue;

function requireTable(tables: readonly TableRows[], name: string, source: string): TableRows {
  const table = tables.find((t) => t.name.toLowerCase() === name);
  if (table === undefined) throw new DqaDataError(`${source}: missing table ${name} (found: ${tables.map((t) => t.name).join(', ') || 'none'})`);
  return table;
}

/**
 * Maps each row of `name` through `read`, giving it a column accessor and a location for
 * messages. One accessor and one locator serve every row (they read the current row), so a
 * table of thousands of rows costs no closures per row; `where` is only called while its row
 * is being read, to word an error.
 */
function mapRows<T>(tables: readonly TableRows[], name: string, columns: readonly string[], source: string, read: (row: RowReader, where: (column: string) => string) => T): T[] {
  const table = requireTable(tables, name, source);
  const positions = new Map<string, number>();
  for (const column of columns) {
    const position = table.columns.findIndex((c) => c.name.toLowerCase() === column);
    if (position < 0) throw new DqaDataError(`${source}: table ${table.name} has no column ${column} (columns: ${table.columns.map((c) => c.name).join(', ')})`);
    positions.set(column, position);
  }
  let values: readonly DumpValue[] = [];
  let rowIndex = 0;
  const row: RowReader = (column) => values[positions.get(column) as number] ?? null;
  const where = (column: string): string => `${source}: ${table.name} row ${rowIndex + 1}, column ${column}`;
  const mapped: T[] = [];
  for (rowIndex = 0; rowIndex < table.rows.length; rowIndex += 1) {
    values = table.rows[rowIndex] as readonly DumpValue[];
    mapped.push(read(row, where));
  }
  return mapped;
}

export function locatingFromTables(tables: readonly TableRows[], source = '<relational dump>'): LocatingData {
  return {
    countries: mapRows(tables, 'country', ['country_name', 'home_node', 'development'], source, (row, at) => ({
      name: readText(row('country_name'), at, 'country_name'),
      homeNode: readText(row('home_node'), at, 'home_node'),
      development: readNumber(row('development'), at, 'development'),
    })),
    tradeNodes: mapRows(tables, 'trade_node', ['trade_node', 'local_value', 'is_inland', 'total_power', 'outgoing', 'ingoing'], source, (row, at) => ({
      name: readText(row('trade_node'), at, 'trade_node'),
      localValue: readNumber(row('local_value'), at, 'local_value'),
      isInland: readBoolean(row('is_inland'), at, 'is_inland'),
      totalPower: readNumber(row('total_power'), at, 'total_power'),
      outgoing: readNumber(row('outgoing'), at, 'outgoing'),
      ingoing: readNumber(row('ingoing'), at, 'ingoing'),
    })),
    flows: mapRows(tables, 'flow', ['source', 'dest', 'flow'], source, (row, at) => ({
      source: readText(row('source'), at, 'source'),
      dest: readText(row('dest'), at, 'dest'),
      flow: readNumber(row('flow'), at, 'flow'),
    })),
    nodeCountries: mapRows(
      tables,
      'node_country',
      ['trade_node', 'country_name', 'is_home', 'has_merchant', 'base_trading_power', 'calculated_trading_power'],
      source,
      (row, at) => ({
        tradeNode: readText(row('trade_node'), at, 'trade_node'),
        country: readText(row('country_name'), at, 'country_name'),
        isHome: readBoolean(row('is_home'), at, 'is_home'),
        hasMerchant: readBoolean(row('has_merchant'), at, 'has_merchant'),
        baseTradingPower: readNumber(row('base_trading_power'), at, 'base_trading_power'),
        calculatedTradingPower: readNumber(row('calculated_trading_power'), at, 'calculated_trading_power'),
      }),
    ),
  };
}

export function buildingFromTables(tables: readonly TableRows[], source = '<relational dump>'): BuildingData {
  return {
    goods: mapRows(tables, 'goods', ['goods_name', 'code', 'base_price', 'current_price', 'pop_demand'], source, (row, at) => ({
      name: readText(row('goods_name'), at, 'goods_name'),
      code: readInteger(row('code'), at, 'code'),
      basePrice: readNumber(row('base_price'), at, 'base_price'),
      currentPrice: readNumber(row('current_price'), at, 'current_price'),
      popDemand: readNumber(row('pop_demand'), at, 'pop_demand'),
    })),
    buildings: mapRows(tables, 'building', ['id', 'name', 'level'], source, (row, at) => ({
      id: readInteger(row('id'), at, 'id'),
      name: readText(row('name'), at, 'name'),
      level: readInteger(row('level'), at, 'level'),
    })),
    supplies: mapRows(tables, 'supply', ['goods_id', 'building_id', 'max_supply', 'current_output', 'level'], source, (row, at) => ({
      goodsCode: readInteger(row('goods_id'), at, 'goods_id'),
      buildingId: readInteger(row('building_id'), at, 'building_id'),
      maxSupply: readNumber(row('max_supply'), at, 'max_supply'),
      currentOutput: readNumber(row('current_output'), at, 'current_output'),
      level: readInteger(row('level'), at, 'level'),
    })),
    demands: mapRows(tables, 'demand', ['goods_id', 'building_id', 'max_demand', 'current_input', 'level'], source, (row, at) => ({
      goodsCode: readInteger(row('goods_id'), at, 'goods_id'),
      buildingId: readInteger(row('building_id'), at, 'building_id'),
      maxDemand: readNumber(row('max_demand'), at, 'max_demand'),
      currentInput: readNumber(row('current_input'), at, 'current_input'),
      level: readInteger(row('level'), at, 'level'),
    })),
  };
}
