import { describe, expect, it } from 'vitest';
import { exportFileName } from '../../../src-main/contract';

describe('exportFileName', () => {
  it('names the file after the notebook and the cell’s place', () => {
    expect(exportFileName({ notebookTitle: 'Sales review', position: 3 })).toBe('Sales-review-cell-3.csv');
    expect(exportFileName({ notebookTitle: 'Ventes — été 2024', position: 1 })).toBe('Ventes-été-2024-cell-1.csv');
  });

  it('keeps only safe characters and a bounded length', () => {
    expect(exportFileName({ notebookTitle: '../../etc/passwd', position: 2 })).toBe('etc-passwd-cell-2.csv');
    expect(exportFileName({ notebookTitle: 'a"b<c>d|e:f*g?h\\i', position: 1 })).toBe('a-b-c-d-e-f-g-h-i-cell-1.csv');
    expect(exportFileName({ notebookTitle: 'x'.repeat(300), position: 1 })).toBe(`${'x'.repeat(80)}-cell-1.csv`);
  });

  it('falls back to the first table (or label) of the query, then to “query”', () => {
    expect(exportFileName({ notebookTitle: '***', position: 4, query: 'SELECT * FROM "orders" o JOIN x' })).toBe('orders-cell-4.csv');
    expect(exportFileName({ notebookTitle: '', position: 1, query: 'MATCH (p:Person) RETURN p' })).toBe('Person-cell-1.csv');
    expect(exportFileName({ notebookTitle: '', position: 1, query: 'SELECT 1' })).toBe('query-cell-1.csv');
  });
});
