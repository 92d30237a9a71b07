/**
 * The Locating scenario's data in a neutral in-memory shape, independent of where it came
 * from (relational dump, graph dump, or a live database through a connector). Arrays keep
 * the source's table/file order: the annotation's tie-break depends on it.
 */

/** A row of `country` / a `(:Country)` node. */
export interface LocatingCountry {
  name: string;
  /** Name of the trade node where the country collects its profit. */
  homeNode: string;
  development: number;
}

/** A row of `trade_node` / a `(:Trade_node)` node. The power and value totals are the stored simulation state. */
export interface LocatingTradeNode {
  name: string;
  localValue: number;
  isInland: boolean;
  totalPower: number;
  outgoing: number;
  ingoing: number;
}

/** A row of `flow` / a `[:source {flow}]` relationship: trade value moves from `source` to `dest`. */
export interface LocatingFlow {
  source: string;
  dest: string;
  flow: number;
}

/** A row of `node_country` / a `[:NodeCountry]` relationship: a country's presence in a trade node. */
export interface LocatingNodeCountry {
  tradeNode: string;
  country: string;
  isHome: boolean;
  hasMerchant: boolean;
  baseTradingPower: number;
  calculatedTradingPower: number;
}

export interface LocatingData {
  countries: LocatingCountry[];
  tradeNodes: LocatingTradeNode[];
  flows: LocatingFlow[];
  nodeCountries: LocatingNodeCountry[];
}

/** The question being decided: where should `country` (home `home`) place its one merchant? */
export interface LocatingQuestionInput {
  country: string;
  home: string;
}
