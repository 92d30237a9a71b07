import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EventName, EventPayload } from '../../../src-main/contract/api';
import { openWorkbench, type Workbench } from '../../../src-main/services/workbench';
import { messageText, startScriptedOpenAiServer, type ScriptedOpenAiServer } from '../../support/scripted-openai';
import type { ScriptStep } from '../../support/scripted-openai/script';
import { useTempDirs } from '../../support/temp';
import { useCleanups } from '../../support/lifecycle';

/**
 * Pearl in the workspace: action libraries kept in the workspace folder and chosen for a run,
 * and the program cell's two requests (check an edited program, run it again).
 */
const tempDir = useTempDirs();
const onCleanup = useCleanups();

async function setup(script: ScriptStep[]) {
  const server: ScriptedOpenAiServer = await startScriptedOpenAiServer(script);
  const workspaceDir = tempDir();
  const workbench: Workbench = openWorkbench({ workspaceDir, platform: { transport: 'websocket' } });
  onCleanup(() => server.close(), () => workbench.close());
  const events: { event: EventName; payload: unknown }[] = [];
  workbench.subscribe((event, payload) => events.push({ event, payload }));
  const locating = (await workbench.invoke('connections/list', {})).find((connection) => connection.name.startsWith('DQA Locating'))!;
  const notebook = await workbench.invoke('notebooks/create', { title: 'Pearl' });
  await workbench.invoke('model/save', { settings: { baseUrl: server.baseUrl, model: 'm', temperature: 0, maxTokens: 100, requestTimeoutMs: 5000, maxRetries: 0, stream: true, toolMode: 'tools' } });
  return { server, workbench, events, locating, notebook, workspaceDir };
}

async function ended(events: { event: EventName; payload: unknown }[], runId: string): Promise<EventPayload<'run-progress'>> {
  const started = Date.now();
  for (;;) {
    const progress = events.filter((entry) => entry.event === 'run-progress').map((entry) => entry.payload as EventPayload<'run-progress'>).filter((entry) => entry.runId === runId).at(-1);
    if (progress && progress.status !== 'running') return progress;
    if (Date.now() - started > 15_000) throw new Error(`run ${runId} did not end`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const minedLibrary = {
  format: 'decision-workbench/pearl-actions',
  version: 1,
  scenario: 'locating',
  schema: 'relational',
  actions: [
    { name: 'FEEDERS', params: ['DB', 'node'], definition: 'The trade nodes that send value into a node, with each flow.', usage: 3, provenance: 'mined: round 2 from UPSTREAM, INFLOW' },
    { name: 'BEST', params: ['evidence', 'goal'], definition: 'The option the evidence shows best for the goal.', usage: 1, provenance: 'mined: round 1' },
    { name: 'CONCAT', params: ['S1', 'S2'], variadic: true, definition: 'Joins its inputs, one per line.', usage: 0, provenance: 'seed' },
  ],
  demonstrations: [],
};

const program = (text: string): ScriptStep => ({ expectTools: ['program'], toolCalls: [{ name: 'program', arguments: { program: text } }] });
const call = (name: string, args: Record<string, string>, expectLast?: string): ScriptStep => ({ expectTools: [name], ...(expectLast ? { expectLastMessageContains: expectLast } : {}), toolCalls: [{ name, arguments: args }] });

describe('Pearl action libraries in the workspace', () => {
  it('lists the seed, imports a mined library with its rounds, shows its actions, and refuses what is not a library', async () => {
    const { workbench, workspaceDir } = await setup([]);
    expect(await workbench.invoke('pearl/libraries/list', {})).toEqual([expect.objectContaining({ id: 'seed', builtIn: true, scenario: 'any', actionCount: 8 })]);
    const dir = tempDir();
    const file = join(dir, 'locating.json');
    writeFileSync(file, JSON.stringify(minedLibrary));
    writeFileSync(join(dir, 'locating.rounds.json'), JSON.stringify({ format: 'decision-workbench/pearl-mining-rounds', version: 1, rounds: [{ round: 0 }, { round: 1 }, { round: 2 }] }));
    const imported = await workbench.invoke('pearl/libraries/import', { path: file });
    expect(imported).toMatchObject({ name: 'locating.json', scenario: 'locating', schema: 'relational', actionCount: 3, roundCount: 3, builtIn: false });
    expect(readdirSync(join(workspaceDir, 'action-libraries'))).toEqual([`${imported.id}.json`]);
    expect((await workbench.invoke('pearl/libraries/list', {})).map((library) => library.id)).toEqual(['seed', imported.id]);
    const view = await workbench.invoke('pearl/libraries/get', { id: imported.id });
    expect(view.actions[0]).toEqual(minedLibrary.actions[0]);
    expect(view.actions[2]).toMatchObject({ name: 'CONCAT', variadic: true });

    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ ...minedLibrary, actions: [{ ...minedLibrary.actions[0], name: 'lower' }] }));
    await expect(workbench.invoke('pearl/libraries/import', { path: bad })).rejects.toThrow('bad.json is not a Pearl action library (format decision-workbench/pearl-actions, version 1): actions.0.name: an action name is upper case letters, digits and underscores');
    await expect(workbench.invoke('pearl/libraries/import', { path: join(dir, 'missing.json') })).rejects.toThrow('no such file (ENOENT)');
    await expect(workbench.invoke('pearl/libraries/get', { id: '../escape' })).rejects.toThrow('There is no action library ../escape in this workspace');
    expect(readdirSync(join(workspaceDir, 'action-libraries'))).toHaveLength(1);
  });

  it('plans with the chosen library; the program cell checks an edit and runs it again with the same library', async () => {
    const planned = 'New actions:\n- None\n\n1. out1 = FEEDERS(DB, "baltic_sea") : who feeds the home node';
    const edited = `${planned}\n2. out2 = BEST(out1, "SWE profit on baltic_sea") : the node for the merchant`;
    const { workbench, server, events, locating, notebook } = await setup([
      {
        ...program(planned),
        expect: (request) => {
          const system = messageText(request.chat.messages[0] as never);
          return system.includes('FEEDERS(DB, node) : The trade nodes') && !system.includes('LOOKUP(') ? undefined : 'the planner was not shown the chosen library';
        },
      },
      call('query', { query: "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source" }, 'node = "baltic_sea"'),
      call('output', { output: 'krakow' }),
      // The edited program, run again: no planner call, FEEDERS then BEST.
      call('query', { query: "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source" }, 'FEEDERS(DB, node)'),
      call('output', { output: 'krakow, novgorod' }),
      call('output', { output: 'krakow' }, '(the output of out1)\nkrakow, novgorod'),
    ]);
    const dir = tempDir();
    writeFileSync(join(dir, 'lib.json'), JSON.stringify(minedLibrary));
    const library = await workbench.invoke('pearl/libraries/import', { path: join(dir, 'lib.json') });
    const base = { notebookId: notebook.id, connectionId: locating.id, question: 'Where should SWE place its merchant on baltic_sea?', technique: 'pearl', mode: 'auto' as const, simulator: { known: { country: 'SWE', home: 'baltic_sea' } } };
    await expect(workbench.invoke('runs/start', { ...base, technique: 'planrag', techniqueOptions: { actionLibrary: library.id } })).rejects.toThrow('PlanRAG (planrag) takes no options, got actionLibrary');
    await expect(workbench.invoke('runs/start', { ...base, techniqueOptions: { actionLibrary: 'lib-nope' } })).rejects.toThrow('There is no action library lib-nope');
    const { runId } = await workbench.invoke('runs/start', { ...base, techniqueOptions: { actionLibrary: library.id } });
    expect(await ended(events, runId)).toMatchObject({ status: 'answered' });

    // The program cell keeps the program and the library's signatures it was checked against.
    const first = (await workbench.invoke('notebooks/get', { id: notebook.id })).cells.find((cell) => cell.data['tool'] === 'pearl-program');
    const input = first?.data['input'] as { program: string; library: { signatures: { name: string; params: string[]; variadic?: boolean }[] } };
    expect(input.program).toBe(planned);
    expect(input.library.signatures.map((action) => action.name)).toEqual(['FEEDERS', 'BEST', 'CONCAT']);
    const broken = await workbench.invoke('pearl/check', { program: `${planned}\n2. out2 = BEST(out9) : x`, actions: input.library.signatures });
    expect(broken).toEqual({
      valid: false,
      steps: 0,
      newActions: [],
      errors: [
        { code: 'arity', line: 5, column: 11, message: expect.stringContaining('BEST(evidence, goal) takes 2 arguments, found 1') },
        { code: 'argument', line: 5, column: 16, message: expect.stringContaining('out9 is neither DB, a quoted string nor an earlier output') },
      ],
    });
    expect(await workbench.invoke('pearl/check', { program: edited, actions: input.library.signatures })).toEqual({ valid: true, errors: [], steps: 2, newActions: [] });

    const again = await workbench.invoke('pearl/run-program', { runId, program: edited, mode: 'auto' });
    expect(await ended(events, again.runId)).toMatchObject({ status: 'answered', technique: 'pearl' });
    server.verify();
    const runs = await workbench.invoke('runs/list', { notebookId: notebook.id });
    expect(runs.find((run) => run.id === again.runId)).toMatchObject({ decision: 'krakow' });
    const cells = (await workbench.invoke('notebooks/get', { id: notebook.id })).cells.filter((cell) => cell.provenance.runId === again.runId);
    expect(cells.find((cell) => cell.data['tool'] === 'pearl-program')?.data['input']).toMatchObject({ author: 'analyst', program: edited, valid: true });
    expect(cells.filter((cell) => cell.data['tool'] === 'pearl-step').map((cell) => cell.provenance.node)).toEqual(['out1', 'out2']);
    expect(cells.at(-1)).toMatchObject({ kind: 'decision', data: { decision: 'krakow', verification: expect.objectContaining({ agrees: true }) } });
    await expect(workbench.invoke('pearl/run-program', { runId: 'run-nope', program: edited, mode: 'auto' })).rejects.toThrow('There is no run run-nope');
    expect(existsSync(join(dir, 'lib.json'))).toBe(true);
  });

  it('gathers the refused attempts and the accepted program in one cell, pushed live; the run log and the report keep each attempt', async () => {
    const refused = 'New actions:\n- None\n\n1. out1 = NEIGHBORS(DB, "baltic_sea", "source", "in") : feeders\n2. out2 = ARGMAX(out9, "SWE profit") : the best';
    const planned = 'New actions:\n- None\n\n1. out1 = NEIGHBORS(DB, "baltic_sea", "source", "in") : the nodes that feed the home node';
    const { workbench, server, events, locating, notebook } = await setup([
      program(refused),
      { ...program(planned), expectLastMessageContains: 'out9 is neither DB' },
      call('query', { query: "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source" }),
      call('output', { output: 'krakow' }),
    ]);
    const { runId } = await workbench.invoke('runs/start', { notebookId: notebook.id, connectionId: locating.id, question: 'Where should SWE place its merchant on baltic_sea?', technique: 'pearl', mode: 'auto', simulator: { known: { country: 'SWE', home: 'baltic_sea' } } });
    expect(await ended(events, runId)).toMatchObject({ status: 'answered' });
    server.verify();

    const programs = (await workbench.invoke('notebooks/get', { id: notebook.id })).cells.filter((cell) => cell.data['tool'] === 'pearl-program');
    expect(programs).toHaveLength(1);
    const cell = programs[0]!;
    expect((cell.data['attempts'] as { attempt: number; valid: boolean }[]).map((attempt) => [attempt.attempt, attempt.valid])).toEqual([[1, false], [2, true]]);
    expect(cell.data['input']).toMatchObject({ attempt: 2, program: planned, valid: true });
    // The cell was added for the first attempt and the same cell (same id) pushed again with the second.
    const pushed = events.filter((entry) => entry.event === 'cell-change').map((entry) => (entry.payload as EventPayload<'cell-change'>).cell).filter((changed) => changed.id === cell.id);
    expect(pushed.map((changed) => (changed.data['attempts'] as unknown[]).length)).toEqual([1, 2]);

    // The report is read from the run log: each attempt is its own entry there.
    const { html } = await workbench.invoke('reports/preview', { notebookId: notebook.id, runId });
    expect(html).toContain('Program, attempt 1 of 8');
    expect(html).toContain('Program, attempt 2 of 8');
    expect(html).toContain('out9 is neither DB');
  });

  it('step-through: the run pauses before the program runs, the analyst edits it, and the report shows the edit', async () => {
    const planned = 'New actions:\n- None\n\n1. out1 = NEIGHBORS(DB, "baltic_sea", "source", "in") : the nodes that feed the home node';
    const { workbench, server, events, locating, notebook } = await setup([
      program(planned),
      call('query', { query: "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source" }),
      call('output', { output: 'krakow' }),
      // The analyst's run, paused: after the edit, out1's query (approved), its output, then out2's.
      call('query', { query: "SELECT source, flow FROM flow WHERE dest = 'baltic_sea' ORDER BY source" }, 'direction = "in"'),
      call('output', { output: 'krakow 0.56, novgorod 0.38' }),
      call('output', { output: 'krakow' }, '(the output of out1)\nkrakow 0.56, novgorod 0.38'),
    ]);
    const { runId } = await workbench.invoke('runs/start', { notebookId: notebook.id, connectionId: locating.id, question: 'Where should SWE place its merchant on baltic_sea?', technique: 'pearl', mode: 'auto', simulator: { known: { country: 'SWE', home: 'baltic_sea' } } });
    expect(await ended(events, runId)).toMatchObject({ status: 'answered' });

    const { runId: stepRun } = await workbench.invoke('pearl/run-program', { runId, program: planned, mode: 'step' });
    const pending = async (subject: string) => {
      const started = Date.now();
      for (;;) {
        const progress = events.filter((entry) => entry.event === 'run-progress').map((entry) => entry.payload as EventPayload<'run-progress'>).filter((entry) => entry.runId === stepRun).at(-1);
        if (progress?.pendingReview?.subject === subject) return progress.pendingReview;
        if (Date.now() - started > 15_000) throw new Error(`no ${subject} review`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };
    const review = await pending('replan');
    expect(review).toMatchObject({ subject: 'replan', steps: ['out1 = NEIGHBORS(DB, "baltic_sea", "source", "in") : the nodes that feed the home node'] });
    const edit = ['out1 = NEIGHBORS(DB, "baltic_sea", "source", "in") : the nodes that feed the home node', 'out2 = ARGMAX(out1, "SWE profit on baltic_sea") : the node for the merchant'];
    await workbench.invoke('runs/review', { runId: stepRun, decision: { action: 'edit', steps: edit } });
    await pending('query');
    await workbench.invoke('runs/review', { runId: stepRun, decision: { action: 'approve' } });
    expect(await ended(events, stepRun)).toMatchObject({ status: 'answered' });
    server.verify();

    const programs = (await workbench.invoke('notebooks/get', { id: notebook.id })).cells.filter((cell) => cell.provenance.runId === stepRun && cell.data['tool'] === 'pearl-program');
    expect(programs.map((cell) => (cell.data['input'] as { attempt: string }).attempt)).toEqual(['analyst', 'analyst 1']);
    expect((programs[1]?.data['input'] as { program: string }).program).toContain('2. out2 = ARGMAX(out1, "SWE profit on baltic_sea") : the node for the merchant');
    const { html } = await workbench.invoke('reports/preview', { notebookId: notebook.id, runId: stepRun });
    expect(html).toContain('Analyst edited the re-plan');
    expect(html).toContain('out2 = ARGMAX(out1, &quot;SWE profit on baltic_sea&quot;) : the node for the merchant');
  });

  it('counts usage across runs, promotes a program\'s new action, and saves each edit as a new version that the next run plans with', async () => {
    const planned = 'New actions:\n- RANK_BY(items, goal) : Orders items by how well each serves the goal.\n\n1. out1 = FEEDERS(DB, "baltic_sea") : who feeds the home node\n2. out2 = RANK_BY(out1, "SWE profit on baltic_sea") : the best feeder first';
    const { workbench, server, events, locating, notebook, workspaceDir } = await setup([
      program(planned),
      call('query', { query: "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source" }),
      call('output', { output: 'krakow, novgorod' }),
      call('output', { output: 'krakow' }, 'RANK_BY(items, goal) : Orders items'),
      // The second run plans with version 3: the edited definition, no BEST, the analyst's LIST_NODES.
      {
        ...program('New actions:\n- None\n\n1. out1 = LIST_NODES(DB) : every trade node'),
        expect: (request) => {
          const system = messageText(request.chat.messages[0] as never);
          return system.includes('LIST_NODES(DB) : Every trade node by name.') && system.includes('FEEDERS(DB, node) : Trade nodes sending value into a node.') && !system.includes('BEST(') && system.includes('RANK_BY(')
            ? undefined
            : 'the planner was not shown the latest version';
        },
      },
      call('query', { query: 'SELECT DISTINCT source FROM flow ORDER BY source' }),
      call('output', { output: 'krakow' }),
    ]);
    const dir = tempDir();
    writeFileSync(join(dir, 'lib.json'), JSON.stringify(minedLibrary));
    const library = await workbench.invoke('pearl/libraries/import', { path: join(dir, 'lib.json') });
    expect(library.version).toBe(1);
    const base = { notebookId: notebook.id, connectionId: locating.id, question: 'Where should SWE place its merchant on baltic_sea?', technique: 'pearl', mode: 'auto' as const, simulator: { known: { country: 'SWE', home: 'baltic_sea' } }, techniqueOptions: { actionLibrary: library.id } };
    const { runId } = await workbench.invoke('runs/start', base);
    expect(await ended(events, runId)).toMatchObject({ status: 'answered' });

    // Usage: the library's 3 for FEEDERS plus this run's one call; RANK_BY is the program's own, so it is not counted.
    const used = await workbench.invoke('pearl/libraries/get', { id: library.id });
    expect(used.actions.map((action) => [action.name, action.usage])).toEqual([['FEEDERS', 4], ['BEST', 1], ['CONCAT', 0]]);
    expect(JSON.parse(readFileSync(join(workspaceDir, 'action-libraries', 'usage.json'), 'utf8'))).toEqual({ [library.id]: { FEEDERS: 1 } });

    const signatures = (await workbench.invoke('notebooks/get', { id: notebook.id })).cells.find((cell) => cell.data['tool'] === 'pearl-program')?.data['input'] as { library: { signatures: { name: string; params: string[] }[] } };
    expect(await workbench.invoke('pearl/check', { program: planned, actions: signatures.library.signatures })).toEqual({ valid: true, errors: [], steps: 2, newActions: ['RANK_BY'] });

    // The program's new action promoted into the run's library, as version 2.
    const promoted = await workbench.invoke('pearl/libraries/promote', { runId, program: planned });
    expect(promoted).toMatchObject({ id: library.id, version: 2, actionCount: 4 });
    const v2 = await workbench.invoke('pearl/libraries/get', { id: library.id });
    expect(v2.actions.at(-1)).toEqual({ name: 'RANK_BY', params: ['items', 'goal'], definition: 'Orders items by how well each serves the goal.', usage: 0, provenance: `analyst: promoted from ${runId}` });
    // Promoted, the action is the library's: the program still reads (defining nothing new), and cannot be promoted twice.
    const withRankBy = (await workbench.invoke('pearl/libraries/get', { id: library.id })).actions.map(({ name, params }) => ({ name, params }));
    expect(await workbench.invoke('pearl/check', { program: planned, actions: withRankBy })).toEqual({ valid: true, errors: [], steps: 2, newActions: [] });
    expect((await workbench.invoke('pearl/check', { program: planned.replace('RANK_BY(items, goal)', 'RANK_BY(items)'), actions: withRankBy })).errors[0]?.message).toContain('RANK_BY is already in the action library');
    await expect(workbench.invoke('pearl/libraries/promote', { runId, program: planned })).rejects.toThrow('The program defines no action that lib.json lacks');
    await expect(workbench.invoke('pearl/libraries/promote', { runId, program: 'New actions:\n- None\n\n1. out1 = FEEDERS(DB, "baltic_sea") : x' })).rejects.toThrow('The program defines no action that lib.json lacks');
    await expect(workbench.invoke('pearl/libraries/promote', { runId, program: 'New actions:\n- None\n\n1. out1 = NOPE(DB) : x' })).rejects.toThrow('The program does not parse against lib.json');

    // The analyst's edit: FEEDERS redefined, BEST dropped, LIST_NODES added; saved as version 3.
    const edit = [
      { name: 'FEEDERS', params: ['DB', 'node'], definition: 'Trade nodes sending value into a node.' },
      { name: 'CONCAT', params: ['S1', 'S2'], variadic: true, definition: 'Joins its inputs, one per line.' },
      { name: 'RANK_BY', params: ['items', 'goal'], definition: 'Orders items by how well each serves the goal.' },
      { name: 'LIST_NODES', params: ['DB'], definition: 'Every trade node by name.' },
    ];
    await expect(workbench.invoke('pearl/libraries/save', { id: library.id, actions: [...edit, { name: 'lower', params: ['x'], definition: 'd' }], note: '' })).rejects.toThrow('The edited library lib.json is not a Pearl action library (format decision-workbench/pearl-actions, version 1): actions.4.name: an action name is upper case letters, digits and underscores');
    await expect(workbench.invoke('pearl/libraries/save', { id: library.id, actions: [...edit, edit[0]!], note: '' })).rejects.toThrow('defines the action FEEDERS twice');
    const saved = await workbench.invoke('pearl/libraries/save', { id: library.id, actions: edit, note: 'clearer FEEDERS, no BEST' });
    expect(saved).toMatchObject({ id: library.id, version: 3, actionCount: 4 });
    const v3 = await workbench.invoke('pearl/libraries/get', { id: library.id });
    expect(v3.actions.map((action) => [action.name, action.usage, action.provenance])).toEqual([
      ['FEEDERS', 4, 'mined: round 2 from UPSTREAM, INFLOW'],
      ['CONCAT', 0, 'seed'],
      ['RANK_BY', 0, `analyst: promoted from ${runId}`],
      ['LIST_NODES', 0, 'analyst'],
    ]);
    expect(v3.versions.map((entry) => [entry.version, entry.note, entry.actionCount])).toEqual([
      [1, 'imported', 3],
      [2, `promoted RANK_BY from ${runId}`, 4],
      [3, 'clearer FEEDERS, no BEST', 4],
    ]);
    // Every earlier version stays readable, and each save is a file of its own, written once.
    expect((await workbench.invoke('pearl/libraries/get', { id: library.id, version: 1 })).actions.map((action) => action.name)).toEqual(['FEEDERS', 'BEST', 'CONCAT']);
    expect((await workbench.invoke('pearl/libraries/get', { id: library.id, version: 2 })).actions.map((action) => action.name)).toEqual(['FEEDERS', 'BEST', 'CONCAT', 'RANK_BY']);
    await expect(workbench.invoke('pearl/libraries/get', { id: library.id, version: 9 })).rejects.toThrow('lib.json has no version 9');
    expect(readdirSync(join(workspaceDir, 'action-libraries')).sort()).toEqual([`${library.id}.json`, `${library.id}.v2.json`, `${library.id}.v3.json`, 'usage.json']);
    expect((await workbench.invoke('pearl/libraries/list', {})).find((entry) => entry.id === library.id)).toMatchObject({ version: 3, actionCount: 4 });

    // The next run plans with the latest version.
    const second = await workbench.invoke('runs/start', base);
    expect(await ended(events, second.runId)).toMatchObject({ status: 'answered' });
    server.verify();
    expect((await workbench.invoke('pearl/libraries/get', { id: library.id })).actions.find((action) => action.name === 'LIST_NODES')?.usage).toBe(1);

    // Editing the bundled seed makes a new workspace library; the seed stays as it was.
    const seed = await workbench.invoke('pearl/libraries/get', { id: 'seed' });
    const fromSeed = await workbench.invoke('pearl/libraries/save', { id: 'seed', actions: seed.actions.filter((action) => action.name !== 'COMPARE'), note: 'no COMPARE' });
    expect(fromSeed).toMatchObject({ name: 'Seed library (edited)', version: 1, actionCount: 7, builtIn: false });
    expect((await workbench.invoke('pearl/libraries/get', { id: 'seed' })).actionCount).toBe(8);
  });

  it('re-runs one step and what depends on it: the other steps keep their outputs, without a model call or a query', async () => {
    const planned = 'New actions:\n- None\n\n1. out1 = FEEDERS(DB, "baltic_sea") : who feeds the home node\n2. out2 = BEST(out1, "SWE profit on baltic_sea") : the best feeder\n3. out3 = BEST(out2, "a node for the merchant") : the node for the merchant';
    const { workbench, server, events, locating, notebook } = await setup([
      program(planned),
      call('query', { query: "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source" }),
      call('output', { output: 'krakow, novgorod' }),
      call('output', { output: 'novgorod' }),
      call('output', { output: 'novgorod' }),
      // Re-running out2: out1 is kept (no query), out2 and out3 (which uses it) run again.
      call('output', { output: 'krakow' }, '(the output of out1)\nkrakow, novgorod'),
      call('output', { output: 'krakow' }, '(the output of out2)\nkrakow'),
    ]);
    const dir = tempDir();
    writeFileSync(join(dir, 'lib.json'), JSON.stringify(minedLibrary));
    const library = await workbench.invoke('pearl/libraries/import', { path: join(dir, 'lib.json') });
    const { runId } = await workbench.invoke('runs/start', { notebookId: notebook.id, connectionId: locating.id, question: 'Where should SWE place its merchant on baltic_sea?', technique: 'pearl', mode: 'auto', simulator: { known: { country: 'SWE', home: 'baltic_sea' } }, techniqueOptions: { actionLibrary: library.id } });
    expect(await ended(events, runId)).toMatchObject({ status: 'answered' });
    await expect(workbench.invoke('pearl/rerun-step', { runId, step: 'out9', mode: 'auto' })).rejects.toThrow(`Run ${runId} has no finished step out9 to re-run (its steps: out1, out2, out3)`);

    const again = await workbench.invoke('pearl/rerun-step', { runId, step: 'out2', mode: 'auto' });
    expect(await ended(events, again.runId)).toMatchObject({ status: 'answered' });
    server.verify();
    const cells = (await workbench.invoke('notebooks/get', { id: notebook.id })).cells.filter((cell) => cell.provenance.runId === again.runId);
    const steps = cells.filter((cell) => cell.data['tool'] === 'pearl-step');
    expect(steps.map((cell) => [cell.provenance.node, (cell.data['input'] as { kind: string }).kind])).toEqual([['out1', 'kept'], ['out2', 'reasoning'], ['out3', 'reasoning']]);
    expect(steps[0]?.data['input']).toMatchObject({ keptFrom: runId, output: 'krakow, novgorod', rerun: ['out2', 'out3'] });
    expect(cells.filter((cell) => cell.kind === 'query')).toEqual([]);
    expect((await workbench.invoke('runs/list', { notebookId: notebook.id })).find((run) => run.id === again.runId)).toMatchObject({ decision: 'krakow' });
    // Usage: the first run's FEEDERS and two BESTs, then the re-run's two BESTs (the kept FEEDERS called nothing).
    const usage = (await workbench.invoke('pearl/libraries/get', { id: library.id })).actions.map((action) => [action.name, action.usage]);
    expect(usage).toEqual([['FEEDERS', 4], ['BEST', 5], ['CONCAT', 0]]);
    const { html } = await workbench.invoke('reports/preview', { notebookId: notebook.id, runId: again.runId });
    expect(html).toContain(`[kept from ${runId}]`);
    expect(html).toContain('out3 = BEST(out2, &quot;a node for the merchant&quot;)');
  });

  it('step-through of a re-run step: the analyst approves the program and edits the step\'s query, which is the one that runs', async () => {
    const planned = 'New actions:\n- None\n\n1. out1 = FEEDERS(DB, "baltic_sea") : who feeds the home node\n2. out2 = BEST(out1, "SWE profit on baltic_sea") : the node for the merchant';
    const proposed = "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source";
    const edited = "SELECT source, flow FROM flow WHERE dest = 'baltic_sea' ORDER BY flow DESC LIMIT 1";
    const { workbench, server, events, locating, notebook } = await setup([
      program(planned),
      call('query', { query: proposed }),
      call('output', { output: 'krakow, novgorod' }),
      call('output', { output: 'krakow' }),
      // The re-run of out1, step by step: the model proposes the same query; the analyst's edit runs instead.
      call('query', { query: proposed }),
      call('output', { output: 'krakow' }, 'flow'),
      call('output', { output: 'krakow' }, '(the output of out1)\nkrakow'),
    ]);
    const dir = tempDir();
    writeFileSync(join(dir, 'lib.json'), JSON.stringify(minedLibrary));
    const library = await workbench.invoke('pearl/libraries/import', { path: join(dir, 'lib.json') });
    const { runId } = await workbench.invoke('runs/start', { notebookId: notebook.id, connectionId: locating.id, question: 'Where should SWE place its merchant on baltic_sea?', technique: 'pearl', mode: 'auto', simulator: { known: { country: 'SWE', home: 'baltic_sea' } }, techniqueOptions: { actionLibrary: library.id } });
    expect(await ended(events, runId)).toMatchObject({ status: 'answered' });

    const { runId: stepRun } = await workbench.invoke('pearl/rerun-step', { runId, step: 'out1', mode: 'step' });
    const pending = async (subject: string) => {
      const started = Date.now();
      for (;;) {
        const progress = events.filter((entry) => entry.event === 'run-progress').map((entry) => entry.payload as EventPayload<'run-progress'>).filter((entry) => entry.runId === stepRun).at(-1);
        if (progress?.pendingReview?.subject === subject) return progress.pendingReview;
        if (Date.now() - started > 15_000) throw new Error(`no ${subject} review`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };
    await pending('replan');
    await workbench.invoke('runs/review', { runId: stepRun, decision: { action: 'approve' } });
    expect(await pending('query')).toMatchObject({ subject: 'query', query: proposed, node: 'out1' });
    await workbench.invoke('runs/review', { runId: stepRun, decision: { action: 'edit', query: edited } });
    expect(await ended(events, stepRun)).toMatchObject({ status: 'answered' });
    server.verify();
    const cells = (await workbench.invoke('notebooks/get', { id: notebook.id })).cells.filter((cell) => cell.provenance.runId === stepRun);
    expect(cells.filter((cell) => cell.kind === 'query').map((cell) => cell.source)).toEqual([edited]);
    expect(cells.filter((cell) => cell.data['tool'] === 'pearl-step').map((cell) => [cell.provenance.node, (cell.data['input'] as { kind: string }).kind])).toEqual([['out1', 'database'], ['out2', 'reasoning']]);
    const { html } = await workbench.invoke('reports/preview', { notebookId: notebook.id, runId: stepRun });
    expect(html).toContain('ORDER BY flow DESC LIMIT 1');
  });

  it('mines actions from the analyst\'s past questions and their rules, kept as a proposal with its rounds until accepted or rejected', async () => {
    const rules = 'profit(c) = (LV(h) + IV(h)) * TPR(h, c)';
    const minedProposal = (name: string) => ({ content: `New actions:\n- ${name}(DB, node, country) : The share of trading power a country holds on a node.\n\n1. out1 = ${name}(DB, "baltic_sea", "SWE") : SWE's share at home` });
    const { workbench, server, events, locating, notebook, workspaceDir } = await setup([
      program('New actions:\n- None\n\n1. out1 = LOOKUP(DB, "baltic_sea", "local_value") : the home node value'),
      call('query', { query: "SELECT local_value FROM trade_node WHERE trade_node = 'baltic_sea'" }),
      call('output', { output: 'krakow' }),
      // Mining: one call for the past question, one for its rules' formula terms.
      { ...minedProposal('FEEDER_SHARE'), expectLastMessageContains: 'Where should SWE place its merchant on baltic_sea?' },
      { ...minedProposal('TRADE_POWER_SHARE'), expectLastMessageContains: [rules, 'every quantity these business rules define'] },
      // A second mining, rejected.
      minedProposal('OTHER_SHARE'),
      minedProposal('LAST_SHARE'),
    ]);
    await expect(workbench.invoke('pearl/libraries/mine', { connectionId: locating.id })).rejects.toThrow('No question has been asked of this data yet');
    const { runId } = await workbench.invoke('runs/start', { notebookId: notebook.id, connectionId: locating.id, question: 'Where should SWE place its merchant on baltic_sea?', rules, technique: 'pearl', mode: 'auto', simulator: { known: { country: 'SWE', home: 'baltic_sea' } } });
    expect(await ended(events, runId)).toMatchObject({ status: 'answered' });

    const mined = await workbench.invoke('pearl/libraries/mine', { connectionId: locating.id });
    expect(mined).toMatchObject({ status: 'proposed', scenario: 'locating', schema: 'relational', actionCount: 10, roundCount: 1 });
    const view = await workbench.invoke('pearl/libraries/get', { id: mined.id });
    expect(view.versions[0]?.note).toBe('mined from 1 past question and their rules');
    expect(view.rounds).toEqual([{ round: 0, kind: 'proposals', before: 8, after: 10, merges: [] }]);
    expect(view.actions.slice(-2).map((action) => [action.name, action.provenance])).toEqual([['FEEDER_SHARE', `mined: ${runId}`], ['TRADE_POWER_SHARE', 'mined: rules-1']]);
    await expect(workbench.invoke('runs/start', { notebookId: notebook.id, connectionId: locating.id, question: 'q', technique: 'pearl', mode: 'auto', techniqueOptions: { actionLibrary: mined.id } })).rejects.toThrow('was mined and waits for review: accept it before a run plans with it');
    expect(await workbench.invoke('pearl/libraries/decide', { id: mined.id, accept: true })).toMatchObject({ status: 'accepted' });
    await expect(workbench.invoke('pearl/libraries/decide', { id: mined.id, accept: false })).rejects.toThrow('is not waiting for review (it is accepted)');

    const second = await workbench.invoke('pearl/libraries/mine', { connectionId: locating.id, from: mined.id });
    expect(second).toMatchObject({ status: 'proposed', actionCount: 12 });
    expect(await workbench.invoke('pearl/libraries/decide', { id: second.id, accept: false })).toMatchObject({ status: 'rejected' });
    server.verify();
    expect((await workbench.invoke('pearl/libraries/list', {})).map((library) => [library.id, library.status])).toEqual([['seed', 'accepted'], [mined.id, 'accepted']]);
    // Nothing is lost: the rejected library's file stays, with its verdict beside it.
    expect(readdirSync(join(workspaceDir, 'action-libraries')).sort()).toEqual([`${mined.id}.decision.json`, `${mined.id}.json`, `${second.id}.decision.json`, `${second.id}.json`, 'usage.json'].sort());
  });
  it('refines the chosen library\'s demonstrations on past questions the simulator can judge, saved as its next version', async () => {
    const question = 'Where should SWE place its merchant on baltic_sea?';
    const tryProgram = (index: number): string => `New actions:\n- None\n\n1. out1 = FEEDERS(DB, "baltic_sea try ${index}") : who feeds the home node`;
    const oneTry = (index: number, output: string): ScriptStep[] => [
      program(tryProgram(index)),
      call('query', { query: "SELECT source FROM flow WHERE dest = 'baltic_sea' ORDER BY source" }),
      call('output', { output }),
      ...(output === 'krakow' ? [] : [call('answer', { decision: 'atlantis', rationale: output })]),
    ];
    const { workbench, server, events, locating, notebook, workspaceDir } = await setup([
      // The past question, asked with its parameters; and one without them (the simulator cannot judge it).
      ...oneTry(0, 'krakow'),
      ...oneTry(9, 'krakow'),
      call('answer', { decision: 'krakow', rationale: 'no simulator: the model names the decision' }),
      // Refinement of the first: wrong, then right.
      ...oneTry(1, 'no idea'),
      { ...oneTry(2, 'krakow')[0]!, expectLastMessageContains: [tryProgram(1), 'Wrong: this program did not lead to the right decision'] },
      ...oneTry(2, 'krakow').slice(1),
    ]);
    const dir = tempDir();
    writeFileSync(join(dir, 'lib.json'), JSON.stringify(minedLibrary));
    const library = await workbench.invoke('pearl/libraries/import', { path: join(dir, 'lib.json') });
    await expect(workbench.invoke('pearl/libraries/refine', { connectionId: locating.id, id: library.id })).rejects.toThrow('No past question on this data names what the simulator needs');
    const base = { notebookId: notebook.id, connectionId: locating.id, technique: 'pearl', mode: 'auto' as const, techniqueOptions: { actionLibrary: library.id } };
    const first = await workbench.invoke('runs/start', { ...base, question, simulator: { known: { country: 'SWE', home: 'baltic_sea' } } });
    expect(await ended(events, first.runId)).toMatchObject({ status: 'answered' });
    const second = await workbench.invoke('runs/start', { ...base, question: 'Which node feeds baltic_sea most?' });
    expect(await ended(events, second.runId)).toMatchObject({ status: 'answered' });

    const refined = await workbench.invoke('pearl/libraries/refine', { connectionId: locating.id, id: library.id });
    server.verify();
    expect(refined.outcomes).toEqual([{ question, tries: 2, kept: true }]);
    expect(refined.library).toMatchObject({ id: library.id, version: 2, demonstrationCount: 1 });
    const view = await workbench.invoke('pearl/libraries/get', { id: library.id });
    expect(view.versions.find((version) => version.version === 2)?.note).toBe('refined 1 demonstration on 1 past question');
    const saved = JSON.parse(readFileSync(join(workspaceDir, 'action-libraries', `${library.id}.v2.json`), 'utf8')) as { library: { demonstrations: unknown[] } };
    expect(saved.library.demonstrations).toEqual([{ scenario: 'locating', question, program: tryProgram(2) }]);
    // Version 1 is kept as it was.
    expect(await workbench.invoke('pearl/libraries/get', { id: library.id, version: 1 })).toMatchObject({ version: 1, demonstrationCount: 0 });
    await expect(workbench.invoke('pearl/libraries/refine', { connectionId: locating.id, id: 'lib-nope' })).rejects.toThrow('There is no action library lib-nope');
  });
});
