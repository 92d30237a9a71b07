import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assessSignatures } from '../../../src-main/reports/bundle-signatures';
import { verifyBundleText } from '../../../src-main/reports/verify-bundle';
import { encryptedSecretStore } from '../../../src-main/secrets/secret-store';
import { openWorkbench, type Platform } from '../../../src-main/services/workbench';
import { useCleanups } from '../../support/lifecycle';
import { startScriptedOpenAiServer } from '../../support/scripted-openai';
import { useTempDirs } from '../../support/temp';
import { testEncryptor } from '../../support/test-encryptor';

const tempDir = useTempDirs();
const onCleanup = useCleanups();


/** A workspace with one finished PlanRAG run on the demo's Locating data. */
async function finishedRun(platform: Platform) {
  const model = await startScriptedOpenAiServer([
    { toolCalls: [{ name: 'plan', arguments: { steps: ['Count the nodes'] } }] },
    { toolCalls: [{ name: 'query', arguments: { query: 'SELECT count(*) AS n FROM trade_node' } }] },
    { toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'It is the largest feeder.' } }] },
  ]);
  const workspace = tempDir();
  const workbench = openWorkbench({ workspaceDir: workspace, platform });
  onCleanup(() => model.close(), () => workbench.close());
  await workbench.invoke('model/save', { settings: { baseUrl: model.baseUrl, model: 'm', temperature: 0, maxTokens: 100, requestTimeoutMs: 5000, maxRetries: 0, stream: false, toolMode: 'tools' } });
  const locating = (await workbench.invoke('connections/list', {})).find((connection) => connection.name.startsWith('DQA Locating'));
  const notebook = await workbench.invoke('notebooks/create', { title: 'Signed' });
  const { runId } = await workbench.invoke('runs/start', { notebookId: notebook.id, connectionId: locating?.id ?? '', question: 'Where?', technique: 'planrag', mode: 'auto' });
  for (const started = Date.now(); ; ) {
    const [run] = await workbench.invoke('runs/list', { notebookId: notebook.id });
    if (run && run.status !== 'running') break;
    if (Date.now() - started > 20_000) throw new Error('the run did not end');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { workbench, workspace, reference: { notebookId: notebook.id, runId } };
}

describe('signed exports in the app', () => {
  it('keeps the key in the OS key store, made at the first signed export and never by the preview', async () => {
    const { workbench, workspace, reference } = await finishedRun({ transport: 'ipc', secretStore: (database) => encryptedSecretStore(database, testEncryptor()) });
    const ada = { name: 'Ada Analyst', comment: 'Approved.' };

    const before = await workbench.invoke('reports/preview', { ...reference, signOff: ada });
    expect(before.html).toContain('Not signed off');
    const exported = await workbench.invoke('reports/export', { ...reference, format: 'json', signOff: ada });
    const verdict = verifyBundleText(readFileSync(exported?.path ?? '', 'utf8'));
    if (!verdict.ok) throw new Error('the exported bundle does not verify');
    const fingerprint = verdict.bundle.seal[1]?.record.type === 'sign-off' ? (verdict.bundle.seal[1].record.fingerprint ?? '') : '';
    expect(fingerprint).toMatch(/^SHA256:/);
    expect(assessSignatures(verdict.bundle, [{ name: 'Ada Analyst', fingerprint, source: 'test' }]).map((entry) => entry.status)).toEqual(['trusted', 'trusted']);

    // The preview now signs with the same key and names the same head as the export.
    const after = await workbench.invoke('reports/preview', { ...reference, signOff: ada });
    expect(after.head).toBe(exported?.head);
    expect(after.html).toContain(fingerprint);
    await expect(workbench.invoke('reports/preview', { ...reference, signOff: { name: 'Grace Manager', comment: '' } })).rejects.toThrow(`is registered to "Ada Analyst": a sign-off with it must be in that name, not "Grace Manager"`);
    for (const file of readdirSync(workspace).filter((name) => name.startsWith('workspace.sqlite'))) {
      expect(readFileSync(join(workspace, file)).toString('latin1'), file).not.toContain('PRIVATE KEY');
    }
  });

  it('in browser mode keeps it in a 0600 file in DWB_CONFIG_DIR, outside the workspace', async () => {
    const config = tempDir();
    const previousConfigDir = process.env['DWB_CONFIG_DIR'];
    process.env['DWB_CONFIG_DIR'] = config;
    onCleanup(async () => {
      // Back to the suite's own folder (vitest.config.ts), never to the user's.
      if (previousConfigDir === undefined) delete process.env['DWB_CONFIG_DIR'];
      else process.env['DWB_CONFIG_DIR'] = previousConfigDir;
    });
    const { workbench, reference } = await finishedRun({ transport: 'websocket' });
    const exported = await workbench.invoke('reports/export', { ...reference, format: 'md', signOff: { name: 'Ada Analyst', comment: '' } });
    expect(statSync(join(config, 'keys', 'analyst-key.pem')).mode & 0o777).toBe(0o600);
    const publicKey = JSON.parse(readFileSync(join(config, 'keys', 'analyst-key.json'), 'utf8')) as { name: string; fingerprint: string };
    expect(publicKey.name).toBe('Ada Analyst');
    expect(readFileSync(exported?.path ?? '', 'utf8')).toContain(`| Signed by | Ada Analyst, Ed25519 key ${publicKey.fingerprint} |`);
  });
});
