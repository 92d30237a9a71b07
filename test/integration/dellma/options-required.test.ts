/**
 * A DeLLMa run from the workbench needs the options listed in the question: without two, the
 * run used to spend a model call on a candidate query and then fail with "needs at least two
 * options". runs/start now refuses it before anything is stored or asked of the model.
 */
import { describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../src-main/contract';
import { openWorkbench } from '../../../src-main/services/workbench';
import { useCleanups } from '../../support/lifecycle';
import { startScriptedOpenAiServer } from '../../support/scripted-openai';
import { agricultureDatabase } from '../../support/agriculture-database';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();
const onCleanup = useCleanups();

describe('starting a DeLLMa run in the workbench', () => {
  it('is refused, with the reason, before any model call when the question lists fewer than two options', async () => {
    const server = await startScriptedOpenAiServer([]);
    const workbench = openWorkbench({ workspaceDir: tempDir(), platform: { transport: 'websocket' }, installDemo: false });
    onCleanup(() => server.close(), () => workbench.close());
    const connection = await workbench.invoke('connections/add', { name: 'Agriculture', target: { engine: 'sqlite', path: agricultureDatabase(tempDir()) } });
    const notebook = await workbench.invoke('notebooks/create', { title: 'DeLLMa' });
    await workbench.invoke('model/save', { settings: { baseUrl: server.baseUrl, model: 'm', temperature: 0, maxTokens: 400, requestTimeoutMs: 5000, maxRetries: 0, stream: false, toolMode: 'tools' } });
    const start = (question: string): Promise<unknown> => workbench.invoke('runs/start', { notebookId: notebook.id, connectionId: connection.id, question, technique: 'dellma', mode: 'auto' });

    const none = await start('Which fruit should I plant next season?').catch((error: unknown) => error);
    expect(none).toBeInstanceOf(WorkbenchError);
    expect(none).toMatchObject({ code: 'invalid-request', message: 'DeLLMa needs at least two options: list them on a line of the question, "Options: a; b; c" (the question lists none)' });
    const one = await start('Which fruit should I plant next season?\nOptions: apple').catch((error: unknown) => error);
    expect(one).toMatchObject({ code: 'invalid-request', message: expect.stringContaining('(the question lists one)') });

    expect(server.chatRequests()).toEqual([]);
    expect(await workbench.invoke('runs/list', { notebookId: notebook.id })).toEqual([]);
    expect((await workbench.invoke('notebooks/get', { id: notebook.id })).cells).toEqual([]);
  });
});
