import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sealVersion, type PlaybookVersion } from '../../../src-main/engine/techniques/autoplan/playbook';
import { writeVersion } from '../../../src-main/benchmark/playbook-training';
import { verifyBundleText } from '../../../src-main/reports/verify-bundle';
import { openWorkbench } from '../../../src-main/services/workbench';
import { useCleanups } from '../../support/lifecycle';
import { startScriptedOpenAiServer } from '../../support/scripted-openai';
import { messageText } from '../../support/scripted-openai/script';
import { useTempDirs } from '../../support/temp';
import { tinySqlite } from '../../support/fixtures';

const tempDir = useTempDirs();
const onCleanup = useCleanups();

const FIRST = '1. Query the home node.\n2. Finish with its largest feeder.';
const SECOND = '1. Query the home node and the nodes that flow into it.\n2. Compare their ingoing value.\n3. Finish with the best node.';

function version(index: number, playbook: string, previous: string, parent: string | null, questionIds: string[]): PlaybookVersion {
  return sealVersion({
    format: 'decision-workbench/playbook-version',
    version: 1,
    taskType: { scenario: 'locating', db: 'rdb' },
    index,
    parent,
    playbook,
    previous,
    batch: { questionIds },
    jobs: questionIds.map((questionId) => ({ questionId, objective: `objective ${questionId}`, steps: [], decision: 'krakow', success: true, summary: `Summary of ${questionId}`, flaws: null, revision: null })),
    successRate: 1,
    cost: { calls: 4, promptTokens: 100, completionTokens: 20 },
    settings: { model: 'scripted', batchSize: 2, temperature: 0.7, reflection: 'sir', maxActions: 10, split: null },
    specifics: [],
    review: { status: 'proposed', pinned: false },
  });
}

/** A `dwb playbook train --out` folder with two versions. */
function trainingOutput(): { dir: string; v1: PlaybookVersion; v2: PlaybookVersion } {
  const dir = tempDir();
  const v1 = version(1, FIRST, '', null, ['L1', 'L2']);
  const v2 = version(2, SECOND, FIRST, v1.hash, ['L3', 'L4']);
  writeVersion(dir, v1);
  writeVersion(dir, v2);
  return { dir, v1, v2 };
}

describe('playbooks in the workspace', () => {
  it('imports versions as proposed, shows a version diff, takes accept, edit and reject, pins only an accepted version, and refuses an edited file', async () => {
    const workspace = tempDir();
    const workbench = openWorkbench({ workspaceDir: workspace, platform: { transport: 'websocket' }, installDemo: false });
    onCleanup(() => workbench.close());
    const changes: unknown[] = [];
    workbench.subscribe((event, payload) => {
      if (event === 'playbooks-change') changes.push(payload);
    });
    const { dir, v1, v2 } = trainingOutput();

    expect(await workbench.invoke('playbooks/import', { directory: dir })).toEqual({ added: 2, known: 0 });
    expect(await workbench.invoke('playbooks/import', { directory: dir })).toEqual({ added: 0, known: 2 });
    await expect(workbench.invoke('playbooks/import', { directory: workspace })).rejects.toThrow(/holds no playbook versions/);
    const listed = (await workbench.invoke('playbooks/list', {})).find((task) => task.scenario === 'locating' && task.db === 'rdb');
    expect(listed?.pinned).toBeNull();
    expect(listed?.versions.map((entry) => [entry.index, entry.hash, entry.parent, entry.status, entry.questionIds])).toEqual([
      [1, v1.hash, null, 'proposed', ['L1', 'L2']],
      [2, v2.hash, v1.hash, 'proposed', ['L3', 'L4']],
    ]);

    const detail = await workbench.invoke('playbooks/get', { hash: v2.hash });
    expect(detail.diff.filter((part) => part.kind === 'removed').map((part) => part.text).join('')).toBe(FIRST + '\n');
    expect(detail.diff.filter((part) => part.kind === 'added').map((part) => part.text).join('')).toBe(SECOND + '\n');
    expect(detail.jobs.map((job) => job.summary)).toEqual(['Summary of L3', 'Summary of L4']);

    await expect(workbench.invoke('playbooks/pin', { hash: v2.hash })).rejects.toThrow(/is proposed: only an accepted version can be pinned/);
    expect((await workbench.invoke('playbooks/review', { hash: v1.hash, action: 'reject' })).status).toBe('rejected');
    const edited = await workbench.invoke('playbooks/edit', { hash: v2.hash, playbook: `${SECOND}\n4. Never name a node in advance.` });
    expect(edited).toMatchObject({ status: 'accepted', origin: 'edit', parent: v2.hash, index: 2 });
    expect((await workbench.invoke('playbooks/get', { hash: edited.hash })).diff.filter((part) => part.kind === 'added').map((part) => part.text)).toEqual(['4. Never name a node in advance.\n']);
    await expect(workbench.invoke('playbooks/review', { hash: v2.hash, action: 'accept' })).rejects.toThrow(/replaced by the analyst's edit/);
    const pinned = await workbench.invoke('playbooks/pin', { hash: edited.hash });
    expect(pinned.pinned).toBe(edited.hash);
    expect(pinned.versions.map((entry) => [entry.status, entry.pinned])).toEqual([
      ['rejected', false],
      ['edited', false],
      ['accepted', true],
    ]);
    await expect(workbench.invoke('playbooks/review', { hash: edited.hash, action: 'reject' })).rejects.toThrow(/is pinned/);
    await expect(workbench.invoke('playbooks/get', { hash: 'zz' })).rejects.toThrow(/64 hex digits/);
    expect(changes.length).toBeGreaterThanOrEqual(5);

    // A version file changed on disk is refused, never used.
    const file = join(workspace, 'playbooks', 'locating-rdb', `${v1.hash}.json`);
    writeFileSync(file, readFileSync(file, 'utf8').replace('Finish with its largest feeder.', 'Finish with krakow.'));
    await expect(workbench.invoke('playbooks/get', { hash: v1.hash })).rejects.toThrow(/does not match its hash/);
    // So is a registry cut short: the error names the file, nothing is overwritten.
    const registry = join(workspace, 'playbooks', 'locating-rdb', 'registry.json');
    writeFileSync(registry, '{"format": "decision-workbench/playbook-reg');
    await expect(workbench.invoke('playbooks/list', {})).rejects.toThrow(/registry\.json is not readable JSON/);
    await expect(workbench.invoke('playbooks/pin', { hash: edited.hash })).rejects.toThrow(/registry\.json is not readable JSON/);
    expect(readFileSync(registry, 'utf8')).toBe('{"format": "decision-workbench/playbook-reg');
  });

  it('runs autoplan with the pinned playbook of the data’s task type and records its version and sha256 in the verified run log', async () => {
    const workspace = tempDir();
    const model = await startScriptedOpenAiServer([
      { toolCalls: [{ name: 'query', arguments: { query: 'SELECT count(*) AS n FROM trade_node' } }], content: 'Step 1: query the home node' },
      { toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'largest feeder' } }], content: 'Step 3: finish' },
    ]);
    const workbench = openWorkbench({ workspaceDir: workspace, platform: { transport: 'websocket' } });
    onCleanup(() => model.close(), () => workbench.close());
    const { dir, v2 } = trainingOutput();
    mkdirSync(dir, { recursive: true });
    await workbench.invoke('playbooks/import', { directory: dir });
    await workbench.invoke('playbooks/review', { hash: v2.hash, action: 'accept' });
    await workbench.invoke('playbooks/pin', { hash: v2.hash });
    await workbench.invoke('model/save', { settings: { baseUrl: model.baseUrl, model: 'm', temperature: 0, maxTokens: 100, requestTimeoutMs: 5000, maxRetries: 0, stream: false, toolMode: 'tools' } });
    const locating = (await workbench.invoke('connections/list', {})).find((connection) => connection.name.startsWith('DQA Locating'));
    const notebook = await workbench.invoke('notebooks/create', { title: 'AutoPlan' });
    const reference = { notebookId: notebook.id, runId: '' };
    reference.runId = (await workbench.invoke('runs/start', { notebookId: notebook.id, connectionId: locating?.id ?? '', question: 'Where should I locate my merchant?', technique: 'autoplan', mode: 'auto' })).runId;
    for (const started = Date.now(); ; ) {
      const [run] = await workbench.invoke('runs/list', { notebookId: notebook.id });
      if (run && run.status !== 'running') break;
      if (Date.now() - started > 20_000) throw new Error('the run did not end');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(model.failures).toEqual([]);
    const opening = messageText(model.chatRequests()[0]?.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });
    expect(opening.split(SECOND)).toHaveLength(2);
    const cells = (await workbench.invoke('notebooks/get', { id: notebook.id })).cells;
    expect(cells.find((cell) => cell.kind === 'plan')?.data['steps']).toEqual(['Query the home node and the nodes that flow into it.', 'Compare their ingoing value.', 'Finish with the best node.']);

    const exported = await workbench.invoke('reports/export', { ...reference, format: 'json', signOff: null });
    const verdict = verifyBundleText(readFileSync(exported?.path ?? '', 'utf8'));
    if (!verdict.ok) throw new Error('the exported bundle does not verify');
    const start = verdict.bundle.events[0]?.event as { type: string; playbook?: { version: string | null; sha256: string; text: string } };
    expect(start.type).toBe('run-start');
    expect(start.playbook).toEqual({ version: v2.hash, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), text: SECOND });
    const markdown = await workbench.invoke('reports/export', { ...reference, format: 'md', signOff: null });
    expect(readFileSync(markdown?.path ?? '', 'utf8')).toContain(`version ${v2.hash}`);
  });
});

describe('the playbooks of a removed connection', () => {
  it('are deleted only once the connection is removed, set aside whole, and come back on undo', async () => {
    const workspace = tempDir();
    const workbench = openWorkbench({ workspaceDir: workspace, platform: { transport: 'websocket' }, installDemo: false });
    onCleanup(() => workbench.close());
    const connection = await workbench.invoke('connections/add', { name: 'shops', target: { engine: 'sqlite', path: tinySqlite(tempDir()) } });
    const scenario = `conn-${connection.id}` as const;
    const dir = tempDir();
    const { hash: _locatingHash, ...unsealed } = version(1, FIRST, '', null, ['run-1']);
    const own = sealVersion({ ...unsealed, taskType: { scenario, db: 'rdb' } });
    writeVersion(dir, own);
    await workbench.invoke('playbooks/import', { directory: dir });
    await workbench.invoke('playbooks/review', { hash: own.hash, action: 'accept' });
    await workbench.invoke('playbooks/pin', { hash: own.hash });
    const before = (await workbench.invoke('playbooks/list', {})).find((task) => task.scenario === scenario);
    expect(before).toMatchObject({ db: 'rdb', pinned: own.hash, versions: [{ hash: own.hash, status: 'accepted' }] });

    // While the connection is there, its playbooks stay.
    await expect(workbench.invoke('playbooks/delete-task', { scenario, db: 'rdb' })).rejects.toThrow(/still in the workspace/);
    // DQA task types are never deleted this way.
    await workbench.invoke('connections/remove', { id: connection.id });
    await expect(workbench.invoke('playbooks/delete-task', { scenario: 'locating', db: 'rdb' })).rejects.toThrow(/only the playbooks of a connection/);

    const { restoreId } = await workbench.invoke('playbooks/delete-task', { scenario, db: 'rdb' });
    expect((await workbench.invoke('playbooks/list', {})).some((task) => task.scenario === scenario)).toBe(false);
    // Nothing is lost: the folder waits, whole, under playbooks/.deleted.
    expect(readFileSync(join(workspace, 'playbooks', '.deleted', restoreId, `${own.hash}.json`), 'utf8')).toContain(own.hash);
    await expect(workbench.invoke('playbooks/delete-task', { scenario, db: 'rdb' })).rejects.toThrow(/no playbooks for/);

    // Undo brings it back as it was, pin and review included.
    expect(await workbench.invoke('playbooks/restore', { restoreId })).toEqual(before);
    expect((await workbench.invoke('playbooks/list', {})).find((task) => task.scenario === scenario)).toEqual(before);
    await expect(workbench.invoke('playbooks/restore', { restoreId })).rejects.toThrow(/no longer there/);
    await expect(workbench.invoke('playbooks/restore', { restoreId: '../../etc' })).rejects.toThrow(/does not name deleted playbooks/);
  });
});
