import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src-main/contract/run';
import { bundleFromRun } from '../../../src-main/reports/prepare-bundle';
import { renderIpynb, sqliteReadOnlyUri } from '../../../src-main/reports/render-ipynb';
import { buildReport } from '../../../src-main/reports/report-model';
import { useTempDirs } from '../../support/temp';
import { analystSigner, sampleBundle, sampleEvents, sampleMaterials } from './bundle-fixture';
import { nbformatValidator } from './nbformat-schema';

type NotebookJson = {
  nbformat: number;
  cells: { cell_type: string; id: string; source: string[]; outputs?: { output_type: string; data?: Record<string, string[]>; ename?: string }[] }[];
  metadata: { decision_workbench: { head: string } };
};

const refused = 'DROP TABLE flow';
const templated = "SELECT '{{ cycler.__init__.__globals__.os.system(\"touch pwned\") }}' AS x";

/** The sample run, on the SQLite file at `path`, with a refused write and a query jupysql would expand. */
function eventsWithRefusals(path: string): RunEvent[] {
  const events = sampleEvents();
  const start = events[0] as Extract<RunEvent, { type: 'run-start' }>;
  const end = events.length - 1;
  const extra: RunEvent[] = [
    { type: 'query-start', step: 4, queryId: 'q3', query: refused, author: 'model' },
    { type: 'query-end', step: 4, queryId: 'q3', result: null, error: { name: 'WorkbenchError', code: 'read-only', message: 'SQLite: the statement would change data', retryable: false }, digest: null },
    { type: 'query-start', step: 4, queryId: 'q4', query: templated, author: 'model' },
    { type: 'query-end', step: 4, queryId: 'q4', result: { columns: [{ name: 'x', type: 'TEXT' }], rows: [['{{…}}']], rowCount: 1, truncated: false, elapsedMs: 1 }, error: null, digest: null },
    { type: 'query-start', step: 4, queryId: 'q5', query: 'DELETE FROM flow', author: 'model' },
  ];
  return [{ ...start, connection: { ...start.connection, description: `sqlite:${path}` } }, ...events.slice(1, end), ...extra, events[end] as RunEvent];
}

function notebookOf(events: RunEvent[]): NotebookJson {
  const bundle = bundleFromRun(sampleMaterials(events), { at: '2026-01-02T10:00:00.000Z', generator: 'test' });
  return JSON.parse(renderIpynb(bundle, buildReport(bundle))) as NotebookJson;
}

const codeOf = (notebook: NotebookJson): string[] => notebook.cells.filter((cell) => cell.cell_type === 'code').map((cell) => cell.source.join(''));

describe('the Jupyter export', () => {
  const bundle = sampleBundle();
  const notebook = JSON.parse(renderIpynb(bundle, buildReport(bundle))) as NotebookJson;
  const temp = useTempDirs();

  it('passes the nbformat 4 schema', () => {
    expect(nbformatValidator()(notebook)).toEqual([]);
    expect(notebook.nbformat).toBe(4);
  });

  it('has Markdown cells for the prose and %%sql code cells with the recorded outputs', () => {
    const code = notebook.cells.filter((cell) => cell.cell_type === 'code');
    expect(code[0]?.source.join('')).toBe('%load_ext sql\n# Read-only: SQLite opens the file with mode=ro, so no cell here can change it.\n%sql sqlite:///file:/data/locating.sqlite?mode=ro&uri=true');
    expect(code[1]?.source.join('')).toBe("%%sql\nSELECT source, flow FROM flow WHERE dest = 'baltic_sea'");
    expect(code[1]?.outputs?.[0]?.output_type).toBe('execute_result');
    expect(code[1]?.outputs?.[0]?.data?.['text/html']?.join('')).toContain('<td>krakow</td>');
    expect(new Set(notebook.cells.map((cell) => cell.id)).size).toBe(notebook.cells.length);
    expect(notebook.metadata.decision_workbench.head).toBe(bundle.head);
    expect(notebook.cells[0]?.source.join('')).toContain(`**Sealed by:** Ada Analyst, key \`${analystSigner.fingerprint}\``);
  });

  it('never lets model text become markup in a Markdown cell', () => {
    const markdown = notebook.cells.filter((cell) => cell.cell_type === 'markdown').map((cell) => cell.source.join('')).join('\n');
    expect(markdown).not.toMatch(/<(script|img)/i);
    expect(markdown).toContain('## Decision: krakow &lt;img src=x onerror=alert(1)&gt;');
  });

  it('connects read-only and keeps refused, failed, unfinished and templated queries out of the code', () => {
    const generated = notebookOf(eventsWithRefusals('/data/my db?#%.sqlite'));
    expect(nbformatValidator()(generated)).toEqual([]);
    const code = codeOf(generated);
    expect(code[0]).toMatch(/^%load_ext sql\n#[^\n]*\n%sql sqlite:\/\/\/file:\/data\/my db%3F%23%25\.sqlite\?mode=ro&uri=true$/);
    expect(code.slice(1)).toEqual(["%%sql\nSELECT source, flow FROM flow WHERE dest = 'baltic_sea'"]);
    for (const statement of [refused, 'DELETE FROM flow', 'SELECT nope FROM missing', 'cycler.__init__']) expect(code.join('\n')).not.toContain(statement);

    const markdown = generated.cells.filter((cell) => cell.cell_type === 'markdown').map((cell) => cell.source.join(''));
    expect(markdown.find((text) => text.includes(refused))).toMatch(/^\*\*Query q3 was refused\*\* \(read-only\): SQLite: the statement would change data\n\nIt is kept here as text, not as code, so running this notebook cannot replay it\.\n\n```sql\nDROP TABLE flow\n```$/);
    expect(markdown.find((text) => text.includes('SELECT nope FROM missing'))).toMatch(/^\*\*Query q2 failed\*\* \(syntax\)/);
    expect(markdown.find((text) => text.includes('DELETE FROM flow'))).toMatch(/^\*\*Query q5 has no recorded result\*\*/);
    expect(markdown.find((text) => text.includes('cycler.__init__'))).toMatch(/^\*\*Query q4\*\* contains `\{`, `\}` or `\$`/);
  });

  it('asks for a read-only login where it cannot open the database itself', () => {
    const events = sampleEvents();
    const start = events[0] as Extract<RunEvent, { type: 'run-start' }>;
    const generated = notebookOf([{ ...start, connection: { ...start.connection, engine: 'postgres', description: 'postgres://analyst@db/sales' } }, ...events.slice(1)]);
    const connect = codeOf(generated)[0] ?? '';
    expect(connect.split('\n').filter((line) => !line.startsWith('#'))).toEqual(['%load_ext sql']);
    expect(connect).toContain('READ-ONLY');
    expect(connect).toContain('a role granted SELECT only');
  });

  it('writes SQLite URIs that keep Windows paths and special characters', () => {
    expect(sqliteReadOnlyUri('C:\\data\\a.sqlite')).toBe('file:/C:/data/a.sqlite?mode=ro&uri=true');
    expect(sqliteReadOnlyUri('./rel/a.sqlite')).toBe('file:./rel/a.sqlite?mode=ro&uri=true');
  });

  const python = spawnSync('python3', ['-c', 'import sqlite3'], { encoding: 'utf8' }).status === 0;
  // Without python3 the test is reported as skipped and named NOT RUN, never as passed.
  const withPython = python ? it : (name: string, body: () => void): void => it.skip(`NOT RUN (no python3 with sqlite3): ${name}`, body);
  withPython("runs every code cell's SQL on a copy through the notebook's own connection line, which refuses writes (python3 sqlite3)", () => {
    const dir = temp();
    const path = join(dir, 'locating copy.sqlite');
    const database = new Database(path);
    database.exec("CREATE TABLE flow (source TEXT, dest TEXT, flow REAL); INSERT INTO flow VALUES ('krakow', 'baltic_sea', 4.777), ('lubeck', 'baltic_sea', 2.5)");
    database.close();
    const code = codeOf(notebookOf(eventsWithRefusals(path)));
    const url = /^%sql sqlite:\/\/\/(.*)$/m.exec(code[0] ?? '')?.[1] ?? '';
    // SQLAlchemy's `uri=true` hands the rest to sqlite3 as a URI filename; Python does the same here.
    const uri = url.replace(/&uri=true$/, '');
    const queries = code.slice(1).map((cell) => cell.replace(/^%%sql\n/, ''));
    const script = [
      'import json, sqlite3, sys',
      'uri, queries = json.loads(sys.stdin.read())',
      'connection = sqlite3.connect(uri, uri=True)',
      'results = [connection.execute(query).fetchall() for query in queries]',
      'try:',
      `    connection.execute(${JSON.stringify(refused)})`,
      '    write = "written"',
      'except sqlite3.OperationalError as error:',
      '    write = str(error)',
      'print(json.dumps({"results": results, "write": write}))',
    ].join('\n');
    const output = JSON.parse(execFileSync('python3', ['-c', script], { input: JSON.stringify([uri, queries]), encoding: 'utf8' })) as { results: unknown[]; write: string };
    expect(output.results).toEqual([[['krakow', 4.777], ['lubeck', 2.5]]]);
    expect(output.write).toBe('attempt to write a readonly database');
    const after = new Database(path, { readonly: true });
    expect(after.prepare('SELECT count(*) AS n FROM flow').get()).toEqual({ n: 2 });
    after.close();
  });
});
