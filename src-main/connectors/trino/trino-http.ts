import { WorkbenchError } from '../../contract/errors';
import { parseExactJson } from './exact-json';
import { TrinoServerError, type TrinoQueryError } from './errors';
import type { TrinoEndpoint } from './trino-url';

/** A column as Trino's protocol describes it. */
export interface TrinoColumn {
  name: string;
  /** The type as Trino spells it, e.g. `varchar(40)`, `decimal(10,2)`, `array(integer)`. */
  type: string;
}

/** One response of the statement protocol: maybe columns and rows, and where to ask next. */
interface StatementPage {
  id: string;
  nextUri?: string;
  columns?: TrinoColumn[];
  data?: unknown[][];
  error?: TrinoQueryError;
  updateType?: string;
}

/** Who asks, and in what session: everything Trino takes from request headers. */
export interface TrinoSession {
  endpoint: TrinoEndpoint;
  /** Sent as HTTP Basic authentication; Trino accepts it over HTTPS only. */
  password: string | null;
  /** The read-only transaction the statement runs in, or 'NONE' to start one. */
  transactionId?: string;
  /** Session properties, e.g. `query_max_run_time`. */
  properties?: Record<string, string>;
}

/** A statement under way on the coordinator: its pages, read one round trip at a time. */
export class TrinoStatement {
  private nextUri: string | undefined;
  private finished = false;
  /** Set from `X-Trino-Started-Transaction-Id` by START TRANSACTION. */
  startedTransactionId: string | null = null;
  columns: TrinoColumn[] | null = null;

  private constructor(private readonly session: TrinoSession) {}

  /** POSTs the text to /v1/statement; the query is queued on the coordinator from here on. */
  static async start(session: TrinoSession, text: string): Promise<TrinoStatement> {
    const statement = new TrinoStatement(session);
    const response = await fetchOrFail(`${session.endpoint.baseUrl}/v1/statement`, {
      method: 'POST',
      headers: { ...requestHeaders(session), 'Content-Type': 'text/plain; charset=utf-8' },
      body: text,
    });
    statement.noteHeaders(response);
    statement.take(await readPage(response));
    return statement;
  }

  /** True once the server said there is nothing more (the query finished or failed). */
  get done(): boolean {
    return this.finished;
  }

  /**
   * Rows of the next response that has any (Trino answers with empty pages while it works), or
   * null at the end. Each call is one request or a few: the server keeps the rest buffered and
   * pauses the query when its output buffer fills, which is the backpressure.
   */
  async nextRows(): Promise<unknown[][] | null> {
    while (this.nextUri !== undefined) {
      const response = await fetchOrFail(this.nextUri, { headers: requestHeaders(this.session) });
      this.noteHeaders(response);
      const rows = this.take(await readPage(response));
      if (rows !== null && rows.length > 0) return rows;
    }
    return null;
  }

  /** Reads every remaining page, dropping the rows (for statements read for their effect). */
  async drain(): Promise<void> {
    while ((await this.nextRows()) !== null) {
      // rows of a control statement carry nothing the connector needs
    }
  }

  /**
   * Kills the query on the coordinator: DELETE of the next URI is how the protocol cancels. A
   * query that already finished needs nothing. Safe to call more than once.
   */
  async cancel(): Promise<void> {
    const uri = this.nextUri;
    this.nextUri = undefined;
    this.finished = true;
    if (uri === undefined) return;
    await fetch(uri, { method: 'DELETE', headers: requestHeaders(this.session) }).then(
      (response) => response.body?.cancel(),
      () => undefined,
    );
  }

  /** Session changes come as headers of whichever response finishes the statement. */
  private noteHeaders(response: Response): void {
    this.startedTransactionId = response.headers.get('x-trino-started-transaction-id') ?? this.startedTransactionId;
  }

  private take(page: StatementPage): unknown[][] | null {
    if (page.columns !== undefined) this.columns = page.columns;
    this.nextUri = page.nextUri;
    if (page.nextUri === undefined) this.finished = true;
    if (page.error !== undefined) {
      this.nextUri = undefined;
      this.finished = true;
      throw new TrinoServerError(page.error);
    }
    return page.data ?? null;
  }
}

/** Runs a control statement (START TRANSACTION, ROLLBACK) to its end; returns the statement. */
export async function runToEnd(session: TrinoSession, text: string): Promise<TrinoStatement> {
  const statement = await TrinoStatement.start(session, text);
  await statement.drain();
  return statement;
}

function requestHeaders(session: TrinoSession): Record<string, string> {
  const { endpoint } = session;
  const headers: Record<string, string> = {
    'X-Trino-User': endpoint.user,
    'X-Trino-Source': 'decision-workbench',
    'X-Trino-Catalog': endpoint.catalog,
    // Declares that this client carries transaction ids (Trino refuses START TRANSACTION otherwise).
    'X-Trino-Transaction-Id': session.transactionId ?? 'NONE',
  };
  if (endpoint.schema !== undefined) headers['X-Trino-Schema'] = endpoint.schema;
  const properties = Object.entries(session.properties ?? {});
  if (properties.length > 0) {
    headers['X-Trino-Session'] = properties.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join(',');
  }
  if (session.password !== null) {
    headers['Authorization'] = `Basic ${Buffer.from(`${endpoint.user}:${session.password}`).toString('base64')}`;
  }
  return headers;
}

async function fetchOrFail(url: string, init: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    // Node's fetch says only "fetch failed"; what went wrong (ECONNREFUSED, ENOTFOUND, a TLS
    // refusal) is its cause, which toWorkbenchError appends to the message.
    const reason = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    const origin = new URL(url).origin;
    if (reason instanceof Error && reason.message === 'bad port') {
      // The Fetch standard's blocked ports (1, 25, 6000, …): fetch refuses them before connecting.
      throw new WorkbenchError('connection-failed', `Trino: cannot reach the coordinator at ${origin}: fetch refuses to connect to that port (one of the Fetch standard's blocked ports)`, { cause: error });
    }
    if (reason instanceof Error && (reason as NodeJS.ErrnoException).code === 'ERR_SSL_WRONG_VERSION_NUMBER') {
      // OpenSSL's own text ("…:SSL routines:ssl3_get_record:wrong version number:…") says little to an analyst.
      throw new WorkbenchError('connection-failed', `Trino: cannot reach the coordinator at ${origin}: it does not answer in TLS there (ERR_SSL_WRONG_VERSION_NUMBER); it may speak plain HTTP on that port, so use its HTTPS port or leave out ?ssl=true`, { cause: error });
    }
    throw new Error(`cannot reach the coordinator at ${origin}`, { cause: reason });
  }
  if (response.ok) return response;
  const body = (await response.text().catch(() => '')).trim().slice(0, 300);
  if (response.status === 401) throw new Error(`the coordinator refused the login (HTTP 401${body === '' ? '' : `: ${body}`})`);
  throw new Error(`the coordinator answered HTTP ${response.status}${body === '' ? '' : `: ${body}`}`);
}

async function readPage(response: Response): Promise<StatementPage> {
  const text = await response.text();
  try {
    return parseExactJson(text) as StatementPage;
  } catch {
    throw new Error(`the coordinator sent something that is not a Trino answer: ${text.slice(0, 200)}`);
  }
}
