import { describe, expect, it } from 'vitest';
import { closestNames, suggestionFor, unknownNameIn } from '../../src-main/connectors/shared/unknown-names';

describe('unknown names in engine messages', () => {
  it.each([
    ['SQLite: no such table: main.stores', { kind: 'table', name: 'stores' }],
    ['SQLite: no such column: s.regoin', { kind: 'column', name: 'regoin' }],
    ['DuckDB: Catalog Error: Table with name trade does not exist!\nDid you mean "trades"?', { kind: 'table', name: 'trade' }],
    ['DuckDB: Binder Error: Referenced column "nme" not found in FROM clause!', { kind: 'column', name: 'nme' }],
    ['PostgreSQL: relation "public.trade" does not exist', { kind: 'table', name: 'trade' }],
    ['PostgreSQL: column n.nme does not exist (Perhaps you meant to reference the column "n.name".)', { kind: 'column', name: 'nme' }],
    ["MySQL: Table 'dwb.trade' doesn't exist", { kind: 'table', name: 'trade' }],
    ["MySQL: Unknown column 'nme' in 'field list'", { kind: 'column', name: 'nme' }],
    ['Kùzu: Binder exception: Table Nod does not exist.', { kind: 'table', name: 'Nod' }],
    ['Kùzu: Binder exception: Cannot find property nme for n.', { kind: 'property', name: 'nme' }],
    ['Neo4j: the relationship type TRADE does not exist in the database (the query returned no rows)', { kind: 'relationship type', name: 'TRADE' }],
  ])('%s', (message, expected) => {
    expect(unknownNameIn(message)).toEqual(expected);
  });

  it('finds nothing in other messages', () => {
    expect(unknownNameIn('SQLite: near "SELEC": syntax error')).toBeNull();
  });
});

describe('closest names', () => {
  it('offers the same name in another case first, then near misses, never far ones', () => {
    expect(closestNames('Trades', ['trades', 'trade_log', 'nodes'])).toEqual(['trades']);
    expect(closestNames('regoin_id', ['region_id', 'region', 'id'])).toEqual(['region_id']);
    expect(closestNames('forecasts', ['store', 'region'])).toEqual([]);
    expect(closestNames('ab', ['ac', 'ad', 'ae', 'af'])).toEqual(['ac', 'ad', 'ae']);
    // Two letters swapped is one slip, not two.
    expect(closestNames('plian', ['plain', 'pg_class'])).toEqual(['plain']);
    expect(closestNames('nmae', ['name', 'node'])).toEqual(['name']);
  });

  it('words the suggestion, or says the database has no such name', () => {
    const schema = { kind: 'graph' as const, labels: [{ name: 'Node', properties: [{ name: 'name', type: 'STRING' }], count: 5 }], relationshipTypes: [] };
    expect(suggestionFor({ kind: 'label', name: 'Nod' }, schema)).toBe('did you mean "Node"?');
    expect(suggestionFor({ kind: 'property', name: 'nme' }, schema)).toBe('did you mean "name"?');
    expect(suggestionFor({ kind: 'label', name: 'Forecast' }, schema)).toBe('no label named Forecast in this database');
  });
});
