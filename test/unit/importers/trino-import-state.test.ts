import { describe, expect, it } from 'vitest';

import { judgeSchema, pendingParts } from '../../../src-main/importers/relational/trino-import-state';

describe('what a Trino schema says about an import there', () => {
  it('tells a complete import from one cut short, and both from tables an import did not make', () => {
    expect(judgeSchema([])).toBe('empty');
    // A first import killed while loading: only its partial tables, read as no import at all.
    expect(judgeSchema(['_dwb_partial__dwb_import', '_dwb_partial_goods'])).toBe('partial');
    expect(judgeSchema(['_dwb_import', 'goods', '_dwb_partial_goods'])).toBe('recorded');
    // The marker outranks the record: mid-swap, the record may stand beside tables it does not describe.
    expect(judgeSchema(['_DWB_IMPORT', 'goods', '_dwb_import_pending'])).toBe('pending');
    expect(judgeSchema(['goods'])).toBe('foreign');
    expect(judgeSchema(['_dwb_partial_goods', 'mine'])).toBe('foreign');
  });

  it('lists every table the swaps begun touch, once each, skipping a damaged row', () => {
    const parts = pendingParts(['[{"kind":"table","name":"goods","count":1}]', 'not json', '[{"kind":"table","name":"Goods","count":2},{"kind":"table","name":"demand","count":0}]']);
    expect(parts.map((part) => part.name)).toEqual(['Goods', 'demand']);
  });
});
