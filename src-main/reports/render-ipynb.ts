import { cellSchema, type Cell } from '../contract/notebook';
import type { QueryResult } from '../contract/data';
import { copiedTablesNote } from '../contract/whatif';
import type { ReportBundle } from './bundle-format';
import { escapeHtml } from './html-escape';
import { markdownSanitized } from './markdown-sanitized';
import { markdownCode, markdownFence, markdownLiteral } from './markdown-text';
import { planGraphMarkdown, planGraphTable } from './plan-graph-report';
import { formatTime, formatValue, plural, reviewLabels, reviewSubjectLabels, reviewTextPlain } from './report-format';
import type { DecisionReport } from './report-model';
import { decidedByText } from '../contract/produced-by';
import { producedByMarkdown } from './render-markdown';

/** Rows of a result kept in a notebook output; the digest in the output names the full result. */
const outputRows = 50;

type Source = string[];
type Output = { output_type: 'execute_result'; execution_count: number; data: Record<string, Source>; metadata: Record<string, never> };
type NotebookCell =
  | { cell_type: 'markdown'; id: string; metadata: Record<string, never>; source: Source }
  | { cell_type: 'code'; id: string; metadata: Record<string, never>; execution_count: number | null; source: Source; outputs: Output[] };

/**
 * The run's notebook as a Jupyter notebook (nbformat 4.5): prose cells become Markdown cells
 * and queries become `%%sql` code cells (jupysql) with their recorded results as outputs, so a
 * colleague can read it in Jupyter and re-run the queries against the same database.
 *
 * "Run All" must not be able to change that database: the connection cell opens it read-only
 * (SQLite's `mode=ro`; other engines are left for the reader to connect, with a role that can
 * only read), and only queries that ran successfully on the run's read-only connection become
 * code. A query that was refused or failed is quoted as text in a Markdown cell with its
 * error, and so is one holding text jupysql would expand (`{…}`, `$…`), which would otherwise
 * let the model's text run as Python in the reader's kernel.
 */
export function renderIpynb(bundle: ReportBundle, report: DecisionReport): string {
  const cells: NotebookCell[] = [];
  const ids = new Set<string>();
  const cellId = (wanted: string): string => {
    const base = wanted.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 56) || 'cell';
    let id = base;
    for (let counter = 2; ids.has(id); counter++) id = `${base}-${counter}`;
    ids.add(id);
    return id;
  };
  const markdown = (id: string, text: string): void => void cells.push({ cell_type: 'markdown', id: cellId(id), metadata: {}, source: lines(text) });
  let executionCount = 0;

  markdown(
    'dwb-summary',
    [
      `# ${markdownLiteral(report.title)}`,
      `Decision Workbench run ${markdownCode(report.runId)} (${report.technique.label}, ${markdownLiteral(report.model.name ?? report.model.description)}), ${markdownLiteral(formatTime(report.startedAt))}.`,
      `**Decision:** ${report.decision ? markdownLiteral(report.decision.decision) : 'none'}${report.decision ? ` (${report.decision.verification ? (report.decision.verification.agrees ? 'simulator: optimal' : `simulator: best is ${markdownLiteral(report.decision.verification.best)}`) : `not checked: ${markdownLiteral(report.decision.unchecked ?? 'no simulator checked it')}`}${report.producedBy?.decidedBy ? `; decided by ${markdownLiteral(decidedByText(report.producedBy.decidedBy))}` : ''})` : ''} · **Integrity head:** ${markdownCode(bundle.head)} · **Sealed by:** ${report.integrity.signer ? `${markdownLiteral(report.integrity.signer.name)}, key ${markdownCode(report.integrity.signer.fingerprint)}` : 'unsigned'}`,
      `The queries ran read-only against ${markdownLiteral(report.connection.description)}. To re-run them here, install jupysql (\`pip install jupysql\`) and run the next cell, which connects read-only. Only queries that succeeded are code; refused and failed ones are quoted as text.`,
    ].join('\n\n'),
  );
  markdown('dwb-produced-by', `## Produced by\n\n${producedByMarkdown(report)}`);
  cells.push({ cell_type: 'code', id: cellId('dwb-connect'), metadata: {}, execution_count: null, source: lines(connectCell(report)), outputs: [] });
  // A plan of nodes (Plan*RAG): the graph by level with each node's queries, then every node's figures.
  if (report.planGraph) markdown('dwb-plan-graph', `## Plan graph\n\n${planGraphMarkdown(report.planGraph)}\n\n${planGraphTable(report.planGraph)}`);

  for (const raw of bundle.notebook.cells) {
    const parsed = cellSchema.safeParse(raw);
    if (!parsed.success) continue;
    const cell = parsed.data;
    if (cell.kind === 'query') {
      const withheld = withheldReason(cell);
      if (withheld !== null) {
        markdown(cell.id, `${withheld}\n\n${markdownFence(cell.source, 'sql')}`);
        continue;
      }
      const digest = report.queries.find((query) => query.id === cell.data['queryId'])?.digest ?? null;
      const outputs = queryOutputs(cell, ++executionCount, digest);
      cells.push({ cell_type: 'code', id: cellId(cell.id), metadata: {}, execution_count: outputs.length ? executionCount : null, source: lines(`%%sql\n${cell.source}`), outputs });
    } else {
      markdown(cell.id, proseCell(cell));
    }
  }

  if (report.reviews.length > 0) markdown('dwb-reviews', reviewsCell(report));

  const notebook = {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' },
      language_info: { name: 'python' },
      decision_workbench: { runId: report.runId, head: bundle.head, technique: report.technique.id, exportedBy: report.integrity.generator },
    },
    cells,
  };
  return `${JSON.stringify(notebook, null, 1)}\n`;
}

/** Every review of a step-through run, approvals included, with its query or plan (an edit as a diff). */
function reviewsCell(report: DecisionReport): string {
  const entries = report.reviews.map(
    (review) =>
      `**Step ${review.step}**, ${markdownLiteral(formatTime(review.at))}: the analyst ${reviewLabels[review.action]} the ${reviewSubjectLabels[review.subject]}.${review.note ? ` Note: ${markdownLiteral(review.note)}` : ''}\n\n${markdownFence(reviewTextPlain(review), 'diff')}`,
  );
  return `## Analyst reviews during the run\n\nWhat the analyst decided at each review point (− the model's version, + the analyst's).\n\n${entries.join('\n\n')}`;
}

function connectCell(report: DecisionReport): string {
  const description = report.connection.description;
  const sqlitePath = report.connection.engine === 'sqlite' && description.startsWith('sqlite:') ? description.slice('sqlite:'.length).replace(/^\/\//, '') : null;
  if (sqlitePath) {
    return `%load_ext sql\n# Read-only: SQLite opens the file with mode=ro, so no cell here can change it.\n%sql sqlite:///${sqliteReadOnlyUri(sqlitePath)}`;
  }
  return [
    '%load_ext sql',
    `# Connect to the database the run used (${description.replace(/[\r\n]+/g, ' ')}) READ-ONLY:`,
    `# ${readOnlyAdvice[report.connection.engine] ?? 'with an account that can only read'}.`,
    '# %sql <connection URL>',
  ].join('\n');
}

/** How to connect each engine so that the notebook cannot write, for the reader to follow. */
const readOnlyAdvice: Record<string, string> = {
  sqlite: 'for a SQLite file, sqlite:///file:<path>?mode=ro&uri=true',
  duckdb: 'for DuckDB, open the file with read_only=True (duckdb_engine: connect_args={"read_only": True})',
  postgres: 'for PostgreSQL, log in as a role granted SELECT only (never a superuser)',
  mysql: 'for MySQL/MariaDB, log in as a user granted SELECT only',
};

/**
 * A SQLite URI filename opening `path` read-only, for SQLAlchemy's `uri=true`. The characters
 * that would end the path early (`?`, `#`) or start an escape (`%`) are percent-encoded;
 * Windows paths become `/C:/…` as SQLite's URI form wants.
 */
export function sqliteReadOnlyUri(path: string): string {
  const slashed = path.replace(/\\/g, '/');
  const rooted = /^[A-Za-z]:\//.test(slashed) ? `/${slashed}` : slashed;
  return `file:${rooted.replace(/[%?#]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`)}?mode=ro&uri=true`;
}

/**
 * Why a query cell is quoted as text instead of becoming code, or null when it may run: only a
 * query that succeeded on the read-only connection is replayable.
 */
function withheldReason(cell: Cell): string | null {
  const output = cell.output;
  const id = typeof cell.data['queryId'] === 'string' ? ` ${markdownLiteral(cell.data['queryId'])}` : '';
  const kept = 'It is kept here as text, not as code, so running this notebook cannot replay it.';
  if (output?.status === 'error') {
    const verb = output.error.code === 'read-only' ? 'was refused' : 'failed';
    return `**Query${id} ${verb}** (${markdownLiteral(output.error.code)}): ${markdownLiteral(output.error.message)}\n\n${kept}`;
  }
  if (output?.status !== 'ok' && cell.data['continueByHand'] === true) return `**The query pending when the analyst stopped the run** to continue by hand; it had not run. ${kept}`;
  if (output?.status !== 'ok') return `**Query${id} has no recorded result** (the run ended before it finished). ${kept}`;
  if (/[{}$]/.test(cell.source)) return `**Query${id}** contains \`{\`, \`}\` or \`$\`, which jupysql would expand as Python or template code; it is kept here as text, not as code.`;
  return null;
}

function proseCell(cell: Cell): string {
  const step = cell.provenance.step === undefined ? '' : ` (step ${cell.provenance.step})`;
  switch (cell.kind) {
    case 'question': {
      const rules = typeof cell.data['businessRules'] === 'string' && cell.data['businessRules'].trim() ? `\n\n**Business rules**\n\n${markdownLiteral(cell.data['businessRules'])}` : '';
      return `## Question\n\n${markdownLiteral(cell.source)}${rules}`;
    }
    case 'plan':
      return `### Plan${step}\n\n${numbered(cell.data['steps'], cell.source)}`;
    case 'replan': {
      const reason = typeof cell.data['reason'] === 'string' ? `\n\n**Why:** ${markdownLiteral(cell.data['reason'])}` : '';
      return `### Re-plan${step}${reason}\n\n${numbered(cell.data['steps'], cell.source)}`;
    }
    case 'thought':
      return `**Thought${step}:** ${markdownLiteral(cell.source)}`;
    case 'observation':
      return `**Observation${step}:**\n\n${markdownFence(cell.source)}`;
    case 'decision': {
      const decision = typeof cell.data['decision'] === 'string' ? cell.data['decision'] : cell.source;
      const rationale = typeof cell.data['rationale'] === 'string' ? cell.data['rationale'] : '';
      return `## Decision: ${markdownLiteral(decision)}\n\n${markdownSanitized(rationale)}`;
    }
    case 'simulation':
      return `### Simulation${step}\n\n${cell.output?.status === 'simulated' ? `Best: **${markdownLiteral(cell.output.simulation.best)}** on ${markdownLiteral(cell.output.simulation.objective)}` : markdownFence(cell.source)}`;
    case 'whatif':
      return `### What-if${step}\n\n${cell.output?.status === 'whatif' ? `Best: **${markdownLiteral(String(cell.output.whatif.best))}** (source unchanged: ${markdownCode(cell.output.whatif.sourceDigestAfter)}${markdownLiteral(copiedTablesNote(cell.output.whatif))})\n\n` : ''}${markdownFence(cell.source, 'json')}`;
    case 'note':
    case 'query':
      return markdownSanitized(cell.source);
  }
}

function numbered(steps: unknown, fallback: string): string {
  return Array.isArray(steps) ? steps.map((text, index) => `${index + 1}. ${markdownLiteral(String(text))}`).join('\n') : markdownLiteral(fallback);
}

function queryOutputs(cell: Cell, executionCount: number, digest: string | null): Output[] {
  const output = cell.output;
  if (output?.status !== 'ok') return [];
  return [{ output_type: 'execute_result', execution_count: executionCount, metadata: {}, data: { 'text/plain': lines(plainTable(output.result, digest)), 'text/html': lines(htmlTable(output.result, digest)) } }];
}

function plainTable(result: QueryResult, digest: string | null): string {
  const rows = result.rows.slice(0, outputRows).map((row) => row.map(formatValue));
  const header = result.columns.map((column) => column.name);
  const widths = header.map((name, index) => Math.min(40, Math.max(name.length, ...rows.map((row) => (row[index] ?? '').length))));
  const line = (cells: string[]): string => cells.map((text, index) => text.slice(0, 40).padEnd(widths[index] ?? 0)).join(' | ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('-+-'), ...rows.map(line), footer(result, digest)].join('\n');
}

function htmlTable(result: QueryResult, digest: string | null): string {
  const rows = result.rows.slice(0, outputRows);
  const head = result.columns.map((column) => `<th>${escapeHtml(column.name)}</th>`).join('');
  const body = rows.map((row) => `<tr>${row.map((value) => `<td>${escapeHtml(formatValue(value))}</td>`).join('')}</tr>`).join('\n');
  return `<table>\n<thead><tr>${head}</tr></thead>\n<tbody>\n${body}\n</tbody>\n</table>\n<p>${escapeHtml(footer(result, digest))}</p>`;
}

function footer(result: QueryResult, digest: string | null): string {
  const shown = Math.min(result.rows.length, outputRows);
  const count = shown < result.rowCount ? `${shown} of ${plural(result.rowCount, 'row')} shown` : plural(result.rowCount, 'row');
  return `${count}${result.truncated ? ' (the query hit the row cap)' : ''}${digest ? `; sha256 of the full result ${digest}` : ''}`;
}

/** Jupyter's source form: lines that keep their newline, the last one without. */
function lines(text: string): Source {
  const parts = text.split('\n');
  return parts.map((part, index) => (index < parts.length - 1 ? `${part}\n` : part)).filter((part) => part !== '');
}
