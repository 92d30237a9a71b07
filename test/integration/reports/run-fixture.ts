import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runDwb, type CliResult } from '../../support/cli';
import { sqliteFromDqaDump } from '../../support/fixtures';
import { startScriptedOpenAiServer } from '../../support/scripted-openai';

export type { CliResult };
/** The built CLI with a default time limit of a minute. */
export const dwb = (args: string[], timeoutMs = 60_000): Promise<CliResult> => runDwb(args, { timeoutMs });




/**
 * Gives this test process (and every `dwb` it starts) its own config folder with a signing key
 * for "Ada Analyst", so that sign-offs are signed and the user's real config is never touched.
 */
export async function useAnalystKey(directory: string): Promise<string> {
  const config = join(directory, 'config');
  process.env['DWB_CONFIG_DIR'] = config;
  const created = await dwb(['keys', 'create', '--name', 'Ada Analyst']);
  if (created.code !== 0) throw new Error(`dwb keys create failed (${created.code}): ${created.stderr}`);
  return config;
}

/**
 * A real `dwb run --out DIR` against a DQA database and the scripted model: plan, two queries,
 * a re-plan, a third query, and a decision whose rationale carries Markdown and hostile HTML.
 * The process gets its own config folder with Ada Analyst's signing key (`useAnalystKey`).
 */
export async function makeRunDirectory(directory: string): Promise<{ runDir: string; database: string }> {
  await useAnalystKey(directory);
  const database = sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', directory);
  const questionFile = join(directory, 'question.txt');
  const rulesFile = join(directory, 'rules.txt');
  writeFileSync(questionFile, 'Where should SWE place its merchant to maximise profit at baltic_sea?');
  writeFileSync(rulesFile, 'A merchant steers trade value toward the home node. Only nodes <em>upstream</em> of baltic_sea count.');
  const model = await startScriptedOpenAiServer([
    { toolCalls: [{ name: 'plan', arguments: { steps: ['Read the home node', 'List the upstream nodes', 'Compare SWE power upstream'] } }] },
    { content: 'Start with the home node <script>alert(1)</script>.', toolCalls: [{ name: 'query', arguments: { query: "SELECT trade_node, local_value, ingoing FROM trade_node WHERE trade_node = 'baltic_sea'" } }] },
    { toolCalls: [{ name: 'query', arguments: { query: 'SELECT source, dest, flow FROM flow ORDER BY source, dest' } }] },
    { toolCalls: [{ name: 'replan', arguments: { steps: ['Read the home node', 'Check SWE power in krakow', 'Decide'], reason: 'krakow is the largest feeder of baltic_sea' } }] },
    { toolCalls: [{ name: 'query', arguments: { query: "SELECT trade_node, base_trading_power FROM node_country WHERE country_name = 'SWE' ORDER BY trade_node" } }] },
    {
      toolCalls: [
        {
          name: 'answer',
          arguments: {
            decision: 'krakow',
            rationale: 'SWE steers the most value from **krakow** into `baltic_sea`:\n\n- krakow is the largest upstream feeder\n- SWE already holds trading power there\n\n<img src=x onerror=alert(1)> [details](javascript:alert(2))',
          },
        },
      ],
    },
  ]);
  try {
    const runDir = join(directory, 'run');
    const result = await dwb(['run', '--connection', `sqlite:${database}`, '--question-file', questionFile, '--rules-file', rulesFile, '--technique', 'planrag', '--base-url', model.baseUrl, '--model', 'scripted-model', '--tool-mode', 'tools', '--out', runDir]);
    if (result.code !== 0) throw new Error(`dwb run failed (${result.code}): ${result.stderr}`);
    model.verify();
    return { runDir, database };
  } finally {
    await model.close();
  }
}
