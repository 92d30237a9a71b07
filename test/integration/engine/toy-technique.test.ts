import Database from 'better-sqlite3';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventName, EventPayload } from '../../../src-main/contract/api';
import type { RunEvent } from '../../../src-main/contract/run';
import { runRunCommand } from '../../../src-main/cli/run-command';
import { registerTechnique } from '../../../src-main/engine/techniques/registry';
import { openWorkbench } from '../../../src-main/services/workbench';
import { sqliteFromDqaDump } from '../../support/fixtures';
import { useCleanups } from '../../support/lifecycle';
import { startScriptedOpenAiServer } from '../../support/scripted-openai';
import { useSuiteTempDir, useTempDirs } from '../../support/temp';
import { until } from '../../support/until';
import { toyOrderNote, toyTechnique } from '../../support/toy-technique/technique';

/**
 * A technique added from its own folder (test/support/toy-technique/) and one registry line
 * (`registerTechnique`, the run-time form of the line in registry.ts) runs through the real
 * services and the real `dwb run` command: its options are checked by its own schema, its own
 * refusal and flags apply, and what produced the result names it and its variant.
 */
const suiteDir = useSuiteTempDir();
const tempDir = useTempDirs();
const onCleanup = useCleanups();
const unregister: (() => void)[] = [];
afterEach(() => unregister.splice(0).forEach((remove) => remove()));

const question = 'Which node should SWE trade through?\nCandidates: krakow, novgorod';
/** The toy's answer turn; with its extension on (product fidelity) the prompt carries its order note, off (paper) it does not. */
const answer = (decision: string, extensionOn = true) => ({
  expectLastMessageContains: `Answer with the last of these candidates${extensionOn ? ' (in the order the question lists them)' : ''}: krakow, novgorod`,
  expectTools: ['answer'],
  toolCalls: [{ name: 'answer', arguments: { decision, rationale: 'The last one listed.' } }],
});

describe('a technique registered from its own folder', () => {
  it('starts through runs/start with techniqueOptions: checked by its schema, refused by its own rule, its label and variant in the produced-by record', async () => {
    unregister.push(registerTechnique(toyTechnique));
    const server = await startScriptedOpenAiServer([answer('novgorod'), answer('novgorod', false)]);
    const workspaceDir = tempDir();
    const workbench = openWorkbench({ workspaceDir, platform: { transport: 'websocket' } });
    onCleanup(() => server.close(), () => workbench.close());
    const progress: EventPayload<'run-progress'>[] = [];
    workbench.subscribe((event: EventName, payload: unknown) => {
      if (event === 'run-progress') progress.push(payload as EventPayload<'run-progress'>);
    });
    const locating = (await workbench.invoke('connections/list', {})).find((connection) => connection.name.startsWith('DQA Locating'))!;
    const notebook = await workbench.invoke('notebooks/create', { title: 'Toy' });
    await workbench.invoke('model/save', { settings: { baseUrl: server.baseUrl, model: 'm', temperature: 0, maxTokens: 100, requestTimeoutMs: 5000, maxRetries: 0, stream: false, toolMode: 'tools' } });
    const base = { notebookId: notebook.id, connectionId: locating.id, question, technique: 'toy-pick', mode: 'auto' as const, simulator: { rules: 'off' as const } };

    // Its extension, declared on its definition, reaches the renderer's Fidelity setting with the shared one every technique has.
    const listed = (await workbench.invoke('runs/techniques', {})).find((technique) => technique.id === 'toy-pick');
    expect(listed?.fidelity.extensions.map(({ id, paper, product }) => ({ id, paper, product }))).toEqual([
      { id: 'query-feedback', paper: false, product: true },
      { id: 'toy-order-note', paper: false, product: true },
    ]);
    expect(listed?.fidelity.extensions[1]?.label).toBe(toyOrderNote.label);
    await expect(workbench.invoke('runs/start', { ...base, techniqueOptions: { pick: 'middle' } })).rejects.toThrow(/^Toy pick \(toy-pick\) options: pick: /);
    await expect(workbench.invoke('runs/start', { ...base, techniqueOptions: { pick: 'last', colour: 'red' } })).rejects.toThrow('Toy pick (toy-pick) options: colour: not an option it takes');
    await expect(workbench.invoke('runs/start', { ...base, techniqueOptions: { pick: 'last', atLeast: 3 } })).rejects.toThrow('Toy pick needs at least 3 candidates on a "Candidates:" line');
    // Its options are its own: another technique is refused them, and the old top-level fields are refused too.
    await expect(workbench.invoke('runs/start', { ...base, technique: 'iterrag', techniqueOptions: { pick: 'last' } })).rejects.toThrow('IterRAG (ReAct) (iterrag) takes no options, got pick');
    await expect(workbench.invoke('runs/start', { ...base, known: { country: 'SWE' } } as never)).rejects.toThrow(/known/);
    expect(server.chatRequests()).toHaveLength(0);
    expect(await workbench.invoke('runs/list', { notebookId: notebook.id })).toEqual([]);

    const { runId } = await workbench.invoke('runs/start', { ...base, techniqueOptions: { pick: 'last' } });
    const ended = await until(() => progress.find((entry) => entry.runId === runId && entry.status !== 'running'));
    expect(ended).toMatchObject({ status: 'answered', technique: 'toy-pick', decidedBy: { technique: 'toy-pick', label: 'Toy pick', fallback: null } });
    expect(server.chatRequests()).toHaveLength(1);

    const database = new Database(join(workspaceDir, 'workspace.sqlite'), { readonly: true });
    const events = (database.prepare('SELECT event FROM run_events WHERE run_id = ? ORDER BY seq').pluck().all(runId) as string[]).map((line) => JSON.parse(line) as RunEvent);
    const stored = JSON.parse(database.prepare('SELECT request FROM runs WHERE id = ?').pluck().get(runId) as string) as Record<string, unknown>;
    database.close();
    // Stored with the run as its schema read them (defaults filled in), so a resume runs the same.
    expect(stored['techniqueOptions']).toEqual({ pick: 'last', atLeast: 2 });
    const start = events.find((event) => event.type === 'run-start');
    expect(start).toMatchObject({ technique: 'toy-pick', techniqueOptions: { pick: 'last', atLeast: 2 }, variant: 'pick last' });
    expect(start?.type === 'run-start' && start.fidelity?.extensions).toEqual([
      { id: 'query-feedback', label: 'Richer database feedback', on: true },
      { id: 'toy-order-note', label: toyOrderNote.label, on: true },
    ]);
    const end = events.find((event): event is Extract<RunEvent, { type: 'run-end' }> => event.type === 'run-end');
    expect(end?.producedBy).toMatchObject({
      technique: 'toy-pick',
      techniqueLabel: 'Toy pick',
      variant: 'pick last',
      decidedBy: { technique: 'toy-pick', label: 'Toy pick', fallback: null },
      settings: { techniqueOptions: { pick: 'last', atLeast: 2 } },
      extensions: { 'query-feedback': true, 'toy-order-note': true },
    });

    // Its own record became an observation cell keeping its input, through its definition's cell hook.
    const cells = (await workbench.invoke('notebooks/get', { id: notebook.id })).cells;
    expect(cells.find((cell) => cell.kind === 'observation')).toMatchObject({ source: 'Candidates: krakow, novgorod', data: { tool: 'toy-pick.candidates', input: { pick: 'last', candidates: ['krakow', 'novgorod'] } } });

    // Its record and its section in the reports, through its definition's report hooks (the renderers name no technique).
    const { html } = await workbench.invoke('reports/preview', { notebookId: notebook.id, runId });
    expect(html).toContain('<div class="item-label">Toy pick · candidates</div><table class="data"><thead><tr><th class="num">Order</th><th>Candidate</th></tr></thead><tbody><tr><td class="num">1</td><td>krakow</td></tr><tr><td class="num">2</td><td>novgorod</td></tr></tbody></table>');
    expect(html).toMatch(/<h2><span class="num">\d+<\/span>Which end of the list Toy pick took<\/h2>[\s\S]*<p>The last listed candidate\.<\/p>/);
    const exported = await workbench.invoke('reports/export', { notebookId: notebook.id, runId, format: 'md' });
    const markdown = readFileSync(exported?.path ?? '', 'utf8');
    expect(markdown).toContain('**Toy pick · candidates:**\n\n| Order | Candidate |\n| --- | --- |\n| 1 | krakow |\n| 2 | novgorod |');
    expect(markdown).toMatch(/## \d+\. Which end of the list Toy pick took\n\nThe last listed candidate\./);
    expect(markdown).not.toContain('"tool": "toy-pick.candidates"');

    // At paper fidelity its extension is off: the prompt has no order note, and the records say so.
    const paperRun = await workbench.invoke('runs/start', { ...base, techniqueOptions: { pick: 'last' }, fidelity: 'paper' });
    await until(() => progress.find((entry) => entry.runId === paperRun.runId && entry.status !== 'running'));
    server.verify();
    const reopened = new Database(join(workspaceDir, 'workspace.sqlite'), { readonly: true });
    const paperEvents = (reopened.prepare('SELECT event FROM run_events WHERE run_id = ? ORDER BY seq').pluck().all(paperRun.runId) as string[]).map((line) => JSON.parse(line) as RunEvent);
    reopened.close();
    const paperStart = paperEvents.find((event) => event.type === 'run-start');
    expect(paperStart?.type === 'run-start' && paperStart.fidelity?.extensions.find((extension) => extension.id === 'toy-order-note')?.on).toBe(false);
    const paperEnd = paperEvents.find((event): event is Extract<RunEvent, { type: 'run-end' }> => event.type === 'run-end');
    expect(paperEnd?.producedBy?.extensions).toEqual({ 'query-feedback': false, 'toy-order-note': false });
  });

  it('runs through dwb run with its own flags, and its flags are refused for another technique', async () => {
    unregister.push(registerTechnique(toyTechnique));
    const server = await startScriptedOpenAiServer([answer('novgorod', false)]);
    onCleanup(() => server.close());
    const database = sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', suiteDir());
    const questionFile = join(tempDir(), 'question.txt');
    writeFileSync(questionFile, question);
    const out = tempDir();
    const args = (technique: string, ...flags: string[]) => ['--connection', `sqlite:${database}`, '--question-file', questionFile, '--technique', technique, '--base-url', server.baseUrl, '--model', 'scripted', '--tool-mode', 'tools', '--simulator', 'off', '--whatif', 'off', ...flags, '--out', out];
    const run = async (argv: string[]) => {
      const lines = { stdout: [] as string[], stderr: [] as string[] };
      const code = await runRunCommand(argv, { stdout: (line) => lines.stdout.push(line), stderr: (line) => lines.stderr.push(line) }).catch((error: unknown) => {
        lines.stderr.push((error as Error).message);
        return 2;
      });
      return { code, ...lines };
    };

    const refused = await run(args('planrag', '--pick', 'last'));
    expect(refused).toMatchObject({ code: 2, stderr: ['--pick is for --technique toy-pick, not planrag'] });
    const bad = await run(args('toy-pick', '--pick', 'middle'));
    expect(bad.code).toBe(2);
    expect(bad.stderr.at(-1)).toMatch(/^--pick: /);

    const unknownSwitch = await run(args('planrag', '--extension', 'toy-order-note=off'));
    expect(unknownSwitch).toMatchObject({ code: 2, stderr: ['--extension: The extension toy-order-note is for toy-pick, not planrag'] });
    const result = await run(args('toy-pick', '--pick', 'last', '--extension', 'toy-order-note=off'));
    expect(result.code).toBe(0);
    expect(result.stdout.at(-1)).toBe('decision: novgorod');
    server.verify();
    const events = readFileSync(join(out, 'run-log.jsonl'), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { event: RunEvent }).event);
    const end = events.find((event): event is Extract<RunEvent, { type: 'run-end' }> => event.type === 'run-end');
    expect(end?.producedBy).toMatchObject({ technique: 'toy-pick', techniqueLabel: 'Toy pick', variant: 'pick last', decidedBy: { label: 'Toy pick' }, extensions: { 'toy-order-note': false } });
  });
});
