import { beforeAll, describe, expect, it } from 'vitest';
import { openConnector } from '../../../src-main/connectors/open-connector';
import type { Connector } from '../../../src-main/connectors/connector';
import { WorkbenchError } from '../../../src-main/contract/errors';
import { emptyResultFeedback, errorFeedback, simpleFilteredQuery, topLevelConditions } from '../../../src-main/engine/query-feedback';
import { openWorkbench } from '../../../src-main/services/workbench';
import { sqliteFromDqaDump } from '../../support/fixtures';
import { useCleanups } from '../../support/lifecycle';
import { startScriptedOpenAiServer } from '../../support/scripted-openai';
import { messageText, toolResultsOf } from '../../support/scripted-openai/script';
import { useSuiteTempDir, useTempDirs } from '../../support/temp';

const suiteDir = useSuiteTempDir();
const tempDir = useTempDirs();
const onCleanup = useCleanups();
let path = '';
beforeAll(() => {
  path = sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', suiteDir());
});

async function sqlite(): Promise<Connector> {
  const connector = await openConnector({ engine: 'sqlite', path }, null);
  onCleanup(() => connector.close());
  return connector;
}

/** The database's own error for `query`, with the feedback added to it. */
async function feedbackFor(connector: Connector, query: string): Promise<string | null> {
  try {
    await connector.query(query, { maxRows: 10, timeoutMs: 5000 });
  } catch (caught) {
    return errorFeedback(WorkbenchError.from(caught), query, await connector.schema());
  }
  throw new Error(`${query} did not fail`);
}

const count = (connector: Connector) => async (sql: string) => Number((await connector.query(sql, { maxRows: 1, timeoutMs: 5000 })).rows[0]?.[0]);

describe('richer feedback from the database', () => {
  it('answers an unknown column with the columns of the tables the query names and the closest one, an unknown table with the tables', async () => {
    const connector = await sqlite();
    expect(await feedbackFor(connector, 'SELECT localvalue FROM trade_node')).toBe(
      'Did you mean local_value? Columns of what the query names: trade_node(trade_node, local_value, is_inland, total_power, outgoing, ingoing).',
    );
    expect(await feedbackFor(connector, 'SELECT * FROM trade_nodes')).toBe('Did you mean trade_node? The tables are: country, flow, node_country, trade_node.');
    expect(await feedbackFor(connector, 'SELECT * FROM ships')).toBe('The tables are: country, flow, node_country, trade_node.');
  });

  it('names the clause a syntax error is in', async () => {
    const connector = await sqlite();
    expect(await feedbackFor(connector, "SELECT trade_node FROM trade_node WHERE local_value >> AND ORDER BY 1")).toBe('The error is in the WHERE clause, at "AND".');
    expect(await feedbackFor(connector, 'SELECT trade_node FORM trade_node')).toBe('The error is in the SELECT clause, at "trade_node".');
  });

  it('says which filter removed the rows of an empty result, or that the filters only fail together', async () => {
    const connector = await sqlite();
    const total = await count(connector)('SELECT count(*) FROM trade_node');
    expect(await emptyResultFeedback("SELECT * FROM trade_node WHERE trade_node = 'Krakow' AND local_value > 0", count(connector))).toBe(
      `No rows: the filter trade_node = 'Krakow' alone matches none of the ${total} rows of trade_node; check the value's spelling and case against the data.`,
    );
    const big = await count(connector)('SELECT count(*) FROM trade_node WHERE local_value > 5');
    const krakow = await count(connector)("SELECT count(*) FROM trade_node WHERE trade_node = 'krakow'");
    expect(await emptyResultFeedback("SELECT * FROM trade_node t WHERE t.trade_node = 'krakow' AND local_value > 5 ORDER BY 1", count(connector))).toBe(
      `No rows: each filter alone matches rows of trade_node (t.trade_node = 'krakow': ${krakow}; local_value > 5: ${big}), but not all of them together.`,
    );
    // Joins and subqueries cannot be told apart filter by filter: nothing is claimed.
    expect(await emptyResultFeedback("SELECT * FROM flow JOIN trade_node ON source = trade_node WHERE dest = 'nowhere'", count(connector))).toBeNull();
    expect(simpleFilteredQuery("SELECT * FROM flow WHERE source IN (SELECT trade_node FROM trade_node)")).toBeNull();
    expect(topLevelConditions("a = 'x AND y' AND (b = 1 AND c = 2) and d")).toEqual(["a = 'x AND y'", '(b = 1 AND c = 2)', 'd']);
  });

  it('gives the model the feedback as part of the observation in a run', async () => {
    const model = await startScriptedOpenAiServer([
      { toolCalls: [{ name: 'query', arguments: { query: "SELECT localvalue FROM trade_node WHERE trade_node = 'krakow'" } }] },
      { expectToolResultContains: ['Did you mean local_value?', 'Correct the query and try again'], toolCalls: [{ name: 'query', arguments: { query: "SELECT local_value FROM trade_node WHERE trade_node = 'Krakow'" } }] },
      { expectToolResultContains: ["the filter trade_node = 'Krakow' alone matches none"], toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'r' } }] },
    ]);
    const workbench = openWorkbench({ workspaceDir: tempDir(), platform: { transport: 'websocket' } });
    onCleanup(() => model.close(), () => workbench.close());
    await workbench.invoke('model/save', { settings: { baseUrl: model.baseUrl, model: 'm', temperature: 0, maxTokens: 100, requestTimeoutMs: 5000, maxRetries: 0, stream: false, toolMode: 'tools' } });
    const locating = (await workbench.invoke('connections/list', {})).find((connection) => connection.name.startsWith('DQA Locating'));
    const notebook = await workbench.invoke('notebooks/create', { title: 'Feedback' });
    await workbench.invoke('runs/start', { notebookId: notebook.id, connectionId: locating?.id ?? '', question: 'Where?', technique: 'iterrag', mode: 'auto' });
    for (const started = Date.now(); ; ) {
      const [run] = await workbench.invoke('runs/list', { notebookId: notebook.id });
      if (run && run.status !== 'running') break;
      if (Date.now() - started > 20_000) throw new Error('the run did not end');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(model.failures).toEqual([]);
    expect(toolResultsOf(model.chatRequests()[2] ?? model.chatRequests()[0]!).map(messageText).join('\n')).toContain('rows: 0 (complete)');
  });
});
