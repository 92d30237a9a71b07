import { describe, expect, it } from 'vitest';
import { notebookConnectionId } from '../../../src-renderer/state/notebook-connection';

const connections = [{ id: 'demo' }, { id: 'sales' }, { id: 'hr' }];

describe('notebookConnectionId', () => {
  it('takes the question cell’s connection first, the latest question when there are several', () => {
    const cells = [
      { kind: 'query' as const, connectionId: 'hr' },
      { kind: 'question' as const, connectionId: 'demo' },
      { kind: 'question' as const, connectionId: 'sales' },
    ];
    expect(notebookConnectionId(cells, connections)).toBe('sales');
  });

  it('else the first cell naming a connection still there, else the first connection', () => {
    expect(notebookConnectionId([{ kind: 'note', connectionId: null }, { kind: 'query', connectionId: 'gone' }, { kind: 'query', connectionId: 'hr' }], connections)).toBe('hr');
    expect(notebookConnectionId([{ kind: 'question', connectionId: 'gone' }], connections)).toBe('demo');
    expect(notebookConnectionId([], [])).toBeUndefined();
  });
});
