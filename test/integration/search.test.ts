import { afterEach, describe, expect, it } from 'vitest';
import { openWorkbench, type Workbench } from '../../src-main/services/workbench';
import { fixedEnvironment } from '../support/fixtures';
import { useTempDirs } from '../support/temp';

const tempDir = useTempDirs();
const opened: Workbench[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((workbench) => workbench.close()));
});

describe('search across notebooks', () => {
  it('finds queries, notes and decisions case-insensitively and literally, never what is in the trash', async () => {
    const workbench = openWorkbench({ workspaceDir: tempDir(), platform: { transport: 'websocket' }, environment: fixedEnvironment(), installDemo: false });
    opened.push(workbench);
    const trade = await workbench.invoke('notebooks/create', { title: 'Trade' });
    const query = await workbench.invoke('cells/insert', { notebookId: trade.id, kind: 'query', source: "SELECT * FROM flow WHERE dest = 'Baltic_Sea' AND share LIKE '10%'" });
    const note = await workbench.invoke('cells/insert', { notebookId: trade.id, afterCellId: query.id, kind: 'note', source: 'The baltic_sea node\nreceives most flow.' });
    const decision = await workbench.invoke('cells/insert', {
      notebookId: trade.id,
      afterCellId: note.id,
      kind: 'decision',
      author: 'model',
      source: 'krakow',
      data: { decision: 'krakow', rationale: 'Krakow steers the most value upstream.', evidence: [] },
    });
    const deleted = await workbench.invoke('cells/insert', { notebookId: trade.id, afterCellId: decision.id, kind: 'note', source: 'baltic_sea but deleted' });
    await workbench.invoke('cells/delete', { id: deleted.id });
    const gone = await workbench.invoke('notebooks/create', { title: 'Gone' });
    await workbench.invoke('cells/insert', { notebookId: gone.id, kind: 'note', source: 'baltic_sea in a deleted notebook' });
    await workbench.invoke('notebooks/delete', { id: gone.id });

    const baltic = await workbench.invoke('search/cells', { text: 'BALTIC_sea' });
    expect(baltic.hits.map((hit) => [hit.cellId, hit.kind, hit.notebookTitle])).toEqual([
      [query.id, 'query', 'Trade'],
      [note.id, 'note', 'Trade'],
    ]);
    // The snippet is one line and names where the match is.
    const [first, second] = baltic.hits;
    expect(first && first.snippet.slice(first.match.start, first.match.start + first.match.length)).toBe('Baltic_Sea');
    expect(second?.snippet).toBe('The baltic_sea node receives most flow.');

    // A decision is found by its rationale; % and _ are plain characters.
    expect((await workbench.invoke('search/cells', { text: 'steers the most' })).hits.map((hit) => [hit.cellId, hit.kind])).toEqual([[decision.id, 'decision']]);
    expect((await workbench.invoke('search/cells', { text: '10%' })).hits.map((hit) => hit.cellId)).toEqual([query.id]);
    expect((await workbench.invoke('search/cells', { text: '1%0' })).hits).toEqual([]);
    // A key of a decision's data is not its text.
    expect((await workbench.invoke('search/cells', { text: 'rationale' })).hits).toEqual([]);
    expect((await workbench.invoke('search/cells', { text: 'flow', limit: 1 })).more).toBe(true);
    await expect(workbench.invoke('search/cells', { text: '   ' })).rejects.toMatchObject({ code: 'invalid-request' });
  });

  it('shows a note’s snippet as the words it says, not its Markdown', async () => {
    const workbench = openWorkbench({ workspaceDir: tempDir(), platform: { transport: 'websocket' }, environment: fixedEnvironment(), installDemo: false });
    opened.push(workbench);
    const notebook = await workbench.invoke('notebooks/create', { title: 'Notes' });
    const note = await workbench.invoke('cells/insert', {
      notebookId: notebook.id,
      kind: 'note',
      source: '## Findings\n\n- **Revenue** fell in [March](https://example.com/m) by `12%`\n> keep my_table_name as it is',
    });
    const [hit] = (await workbench.invoke('search/cells', { text: 'revenue' })).hits;
    expect(hit?.cellId).toBe(note.id);
    expect(hit?.snippet).toBe('Findings Revenue fell in March by 12% keep my_table_name as it is');
    expect(hit && hit.snippet.slice(hit.match.start, hit.match.start + hit.match.length)).toBe('Revenue');
    // Text only in the markup is still found, and shown as written.
    const [markup] = (await workbench.invoke('search/cells', { text: '](https' })).hits;
    expect(markup?.snippet).toContain('[March](https://example.com/m)');

    // Read by the parser the notebook renders with: a setext heading without its underline, a reference link without its definition.
    await workbench.invoke('cells/insert', { notebookId: notebook.id, kind: 'note', source: 'Quarterly margin\n================\n\nSee [the audit][a] for `**raw**` figures.\n\n[a]: https://example.com/audit' });
    const [setext] = (await workbench.invoke('search/cells', { text: 'margin' })).hits;
    expect(setext?.snippet).toBe('Quarterly margin See the audit for **raw** figures.');
    // A query is shown as written: its stars are SQL.
    await workbench.invoke('cells/insert', { notebookId: notebook.id, kind: 'query', source: 'SELECT count(*) AS **margin_rows** FROM t' });
    const query = (await workbench.invoke('search/cells', { text: 'margin_rows' })).hits;
    expect(query[0]?.snippet).toBe('SELECT count(*) AS **margin_rows** FROM t');
  });
});
