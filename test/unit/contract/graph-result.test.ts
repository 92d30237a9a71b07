import neo4j from 'neo4j-driver';
import { describe, expect, it } from 'vitest';

import { neo4jTypeName, toNeo4jCell } from '../../../src-main/connectors/neo4j/cell-values';
import { expandNeighboursQuery, graphOfResults, hasGraphColumns } from '../../../src-main/contract/graph-result';
import type { CellValue } from '../../../src-main/contract';

const { Node, Relationship, Path, PathSegment } = neo4j.types;
const int = neo4j.int;

const lisbon = new Node(int(1), ['City'], { name: 'Lisbon', population: int(545000) }, '4:db:1');
const porto = new Node(int(2), ['City', 'Port'], { name: 'Porto' }, '4:db:2');
const road = new Relationship(int(7), int(1), int(2), 'ROAD', { km: 313 }, '5:db:7', '4:db:1', '4:db:2');

/** A result as the Neo4j connector writes it: each value through its own cell and column-type functions. */
function neo4jResult(names: string[], rows: unknown[][]) {
  return {
    columns: names.map((name, index) => ({ name, type: neo4jTypeName(rows.find((row) => row[index] !== null)?.[index]) })),
    rows: rows.map((row) => row.map((value) => toNeo4jCell(value))),
  };
}

describe('graphOfResults on Neo4j cells', () => {
  it('reads nodes and relationships, each element once however many rows return it', () => {
    const result = neo4jResult(['a', 'r', 'b'], [
      [lisbon, road, porto],
      [lisbon, road, porto],
    ]);
    const graph = graphOfResults([result]);
    expect(graph?.nodes).toEqual([
      { id: '4:db:1', labels: ['City'], properties: { name: 'Lisbon', population: 545000 } },
      { id: '4:db:2', labels: ['City', 'Port'], properties: { name: 'Porto' } },
    ]);
    expect(graph?.relationships).toEqual([{ id: '5:db:7', type: 'ROAD', start: '4:db:1', end: '4:db:2', properties: { km: 313 } }]);
  });

  it('reads the nodes and relationships of a path', () => {
    const path = new Path(lisbon, porto, [new PathSegment(lisbon, road, porto)]);
    const graph = graphOfResults([neo4jResult(['p'], [[path]])]);
    expect(graph?.nodes.map((node) => node.id)).toEqual(['4:db:1', '4:db:2']);
    expect(graph?.relationships.map((relationship) => relationship.type)).toEqual(['ROAD']);
  });

  it('merges several results (a cell and its expansions) by element id', () => {
    const lagos = new Node(int(3), ['City'], { name: 'Lagos' }, '4:db:3');
    const coast = new Relationship(int(8), int(1), int(3), 'ROAD', {}, '5:db:8', '4:db:1', '4:db:3');
    const graph = graphOfResults([neo4jResult(['a'], [[lisbon], [porto]]), neo4jResult(['n', 'r', 'm'], [[lisbon, coast, lagos]])]);
    expect(graph?.nodes.map((node) => node.id)).toEqual(['4:db:1', '4:db:2', '4:db:3']);
    expect(graph?.relationships.map((relationship) => relationship.id)).toEqual(['5:db:8']);
  });

  it('reads no graph from text that looks like a node in a column not typed as nodes', () => {
    const lookalike: CellValue = JSON.stringify({ elementId: 'x', labels: ['Fake'], properties: {} });
    const result = { columns: [{ name: 'json', type: 'String' }], rows: [[lookalike]] };
    expect(hasGraphColumns(result)).toBe(false);
    expect(graphOfResults([result])).toBeNull();
  });

  it('skips a cell of a node column that is not a node (null, or another shape) and keeps the rest', () => {
    const result = {
      columns: [{ name: 'n', type: 'Node' }],
      rows: [[null], ['{"elementId": 3}'], ['{not json'], [toNeo4jCell(lisbon)]],
    };
    expect(graphOfResults([result])?.nodes.map((node) => node.id)).toEqual(['4:db:1']);
  });

  it('is null for a result with graph columns but no node in them', () => {
    expect(graphOfResults([{ columns: [{ name: 'n', type: 'Node' }], rows: [[null]] }])).toBeNull();
  });
});

describe('expandNeighboursQuery', () => {
  it('finds a Neo4j node by elementId, its id quoted so it cannot end the literal', () => {
    expect(expandNeighboursQuery('neo4j', "4:x'y\\z:9")).toBe("MATCH (n)-[r]-(m)\nWHERE elementId(n) = '4:x\\'y\\\\z:9'\nRETURN n, r, m\nLIMIT 50");
  });

  it('finds a Kùzu node by its internal id and refuses an id of another form', () => {
    expect(expandNeighboursQuery('kuzu', '0:12')).toBe('MATCH (n)-[r]-(m)\nWHERE id(n) = internal_id(0, 12)\nRETURN n, r, m\nLIMIT 50');
    expect(expandNeighboursQuery('kuzu', '0:1) OR true //')).toBeNull();
  });
});
