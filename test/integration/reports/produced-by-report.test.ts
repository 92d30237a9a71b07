/**
 * Every report format says what produced the decision: a real run (the scripted OpenAI server
 * naming itself "served-model", the real simulator on a DQA database) whose decision copies the
 * `simulate` tool's best candidate, sealed into a bundle and rendered as HTML, Markdown and
 * Jupyter; and a run log recorded before the record existed still renders one, derived.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src-main/contract/run';
import { runToDirectory } from '../../../src-main/engine/run-setup';
import { parseProviderSettings } from '../../../src-main/llm/settings';
import { sealBundle } from '../../../src-main/reports/create-bundle';
import { exportReport } from '../../../src-main/reports/export-report';
import { readRunDirectory } from '../../../src-main/reports/run-directory';
import { repoRoot, sqliteFromDqaDump } from '../../support/fixtures';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer } from '../../support/scripted-openai';
import { useSuiteTempDir } from '../../support/temp';

const suiteDir = useSuiteTempDir();
const servers: ScriptedOpenAiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

let runDir = '';
let baseUrl = '';
beforeAll(async () => {
  const database = sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', suiteDir());
  const server = await startScriptedOpenAiServer([
    { model: 'served-model', toolCalls: [{ name: 'plan', arguments: { steps: ['Simulate every candidate', 'Take the best'] } }] },
    { model: 'served-model', toolCalls: [{ name: 'simulate', arguments: { country: 'SWE', home: 'baltic_sea' } }] },
    { model: 'served-model', expectLastMessageContains: 'krakow', toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'The simulator ranks krakow first.' } }] },
  ]);
  servers.push(server);
  baseUrl = server.baseUrl;
  runDir = join(suiteDir(), 'run');
  const result = await runToDirectory({
    outDir: runDir,
    question: 'Where should SWE place its merchant to maximise its profit on the home node baltic_sea?',
    rules: '',
    technique: 'planrag',
    connection: { target: { engine: 'sqlite', path: database }, description: 'locating 1445' },
    model: { settings: parseProviderSettings({ baseUrl: server.baseUrl, model: 'scripted', toolMode: 'tools', temperature: 0, maxTokens: 512 }) },
    simulator: { rules: 'compat', known: {} },
    whatIf: false,
    limits: { maxSteps: 12 },
  });
  server.verify();
  expect(result).toMatchObject({ status: 'answered', decision: 'krakow' });
}, 120_000);

const bundleOf = (dir: string) => sealBundle(readRunDirectory(dir), { at: '2026-12-02T07:00:00.000Z', generator: 'test' });
const tooled = 'PlanRAG, tool-assisted: copied from simulate at step 2';

describe('reports name what produced the decision', () => {
  it('the bundle carries the record in its run-end event, the simulation that preceded the decision and the decision\'s origin', async () => {
    const bundle = JSON.parse((await exportReport(bundleOf(runDir), 'json')).toString('utf8')) as { events: { event: RunEvent }[] };
    const events = bundle.events.map((entry) => entry.event);
    const simulation = events.find((event) => event.type === 'simulation');
    expect(simulation?.type === 'simulation' && simulation.result.best).toBe('krakow');
    expect(events.find((event) => event.type === 'decision')).toMatchObject({ origin: { technique: 'planrag', toolAssisted: { tool: 'simulate', step: 2 } } });
    const end = events.at(-1);
    expect(end?.type === 'run-end' && end.producedBy).toMatchObject({ model: { configured: 'scripted', served: ['served-model'], endpoint: baseUrl }, temperature: 0, maxTokensPerCall: 512, maxSteps: 12, toolsOffered: expect.arrayContaining(['simulate']) });
  });

  it('HTML (and so PDF) shows the record and says the decision was tool-assisted', async () => {
    const page = (await exportReport(bundleOf(runDir), 'html')).toString('utf8');
    expect(page).toContain('<h3>Produced by</h3>');
    expect(page).toContain('<tr><th>Model</th><td>served-model (configured as scripted)</td></tr>');
    expect(page).toContain(`<tr><th>Endpoint</th><td>${baseUrl}</td></tr>`);
    expect(page).toContain('<tr><th>Token limit per call</th><td>512</td></tr>');
    expect(page).toContain('<tr><th>Step limit</th><td>12</td></tr>');
    expect(page).toMatch(/<tr><th>Product version<\/th><td>\d+\.\d+\.\d+/);
    expect(page).toContain(`Decided by ${tooled}`);
  });

  it('Markdown shows the record as a table and the decision\'s maker', async () => {
    const markdown = (await exportReport(bundleOf(runDir), 'md')).toString('utf8');
    expect(markdown).toContain('### Produced by');
    expect(markdown).toContain('| Model | served-model (configured as scripted) |');
    expect(markdown).toContain('| Temperature | 0 |');
    expect(markdown).toContain('| Decided by | PlanRAG, tool-assisted: copied from simulate at step 2 |');
    expect(markdown).toContain(`**krakow**\n\nDecided by ${tooled}.`);
  });

  it('Jupyter has a Produced by cell and names the maker beside the decision', async () => {
    const notebook = JSON.parse((await exportReport(bundleOf(runDir), 'ipynb')).toString('utf8')) as { cells: { id: string; source: string[] }[] };
    const cell = notebook.cells.find((candidate) => candidate.id === 'dwb-produced-by');
    expect(cell?.source.join('')).toContain('| Model | served-model (configured as scripted) |');
    const summary = notebook.cells.find((candidate) => candidate.id === 'dwb-summary')?.source.join('') ?? '';
    expect(summary).toMatch(/\*\*Decision:\*\* krakow \(simulator: optimal; decided by PlanRAG, tool.assisted: copied from simulate at step 2\)/);
  });

  it('a log recorded before the record existed still renders one, derived from its events and transcript', async () => {
    const fixture = join(repoRoot, 'fixtures/runs/planrag-locating');
    const markdown = (await exportReport(bundleOf(fixture), 'md')).toString('utf8');
    expect(markdown).toContain('| Technique | PlanRAG (planrag) |');
    expect(markdown).toContain('| Product version | not recorded |');
    expect(markdown).toMatch(/\| Structured output \| 0 of \d+ calls constrained, \d+ not recorded \|/);
    expect(readFileSync(join(fixture, 'run-log.jsonl'), 'utf8')).not.toContain('producedBy');
  });
});
