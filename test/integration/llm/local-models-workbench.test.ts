import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openWorkbench, type Workbench } from '../../../src-main/services/workbench';
import { describeOrNotRun } from '../../servers/not-run';
import { fixedEnvironment } from '../../support/fixtures';
import { useTempDirs } from '../../support/temp';
import { testModel } from '../../support/test-model';

const model = testModel();
const tempDir = useTempDirs();
const opened: Workbench[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((workbench) => workbench.close()));
});

function open(directory: string): Workbench {
  const workbench = openWorkbench({ workspaceDir: directory, platform: { transport: 'websocket' }, environment: fixedEnvironment(), installDemo: false });
  opened.push(workbench);
  return workbench;
}

describeOrNotRun('model manager (local GGUF models in the workspace)', model.unavailable, () => {
  it('adds a GGUF file with its header facts, refuses other files, loads with progress, unloads, and keeps the list in the workspace', async () => {
    const directory = tempDir();
    const workbench = open(directory);
    const notGguf = join(tempDir(), 'notes.gguf');
    writeFileSync(notGguf, 'just text');
    await expect(workbench.invoke('local-models/add', { path: notGguf })).rejects.toMatchObject({ code: 'unsupported', message: expect.stringContaining('is not a GGUF model file') });
    await expect(workbench.invoke('local-models/add', { path: join(tempDir(), 'missing.gguf') })).rejects.toMatchObject({ code: 'not-found' });

    const added = await workbench.invoke('local-models/add', { path: model.path! });
    expect(added.models).toHaveLength(1);
    const [entry] = added.models;
    expect(entry).toMatchObject({ path: model.path, architecture: 'llama', quantization: 'MOSTLY_Q4_1', contextLength: 8192, state: 'unloaded', loaded: null });
    expect(entry!.chatTemplate).toContain('im_start');
    await expect(workbench.invoke('local-models/add', { path: model.path! })).rejects.toMatchObject({ code: 'conflict' });

    const progress: number[] = [];
    workbench.subscribe((event, payload) => {
      if (event === 'local-model-progress') progress.push((payload as { progress: number }).progress);
    });
    const loaded = await workbench.invoke('local-models/load', { id: entry!.id, threads: 1, contextSize: 512 });
    expect(loaded.models[0]).toMatchObject({ state: 'loaded', loaded: { contextSize: 512, threads: 1 } });
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.at(-1)).toBe(1);
    expect((await workbench.invoke('local-models/select', { id: entry!.id })).selectedId).toBe(entry!.id);
    expect((await workbench.invoke('local-models/unload', {})).models[0]?.state).toBe('unloaded');
    await workbench.close();
    opened.splice(opened.indexOf(workbench), 1);

    // The list and the choice survive a restart; removing keeps the file.
    const reopened = open(directory);
    const listed = await reopened.invoke('local-models/list', {});
    expect(listed.models.map((listedModel) => listedModel.path)).toEqual([model.path]);
    expect(listed.selectedId).toBe(entry!.id);
    const removed = await reopened.invoke('local-models/remove', { id: entry!.id });
    expect(removed).toMatchObject({ models: [], selectedId: null });
    expect(existsSync(model.path!)).toBe(true);
  }, 240_000);
});
