import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeVersion } from '../../src-main/benchmark/playbook-training';
import { sealVersion } from '../../src-main/engine/techniques/autoplan/playbook';
import { screenshot, useAppInBrowser } from '../support/browser';
import { tinySqlite } from '../support/fixtures';
import { connectSocket } from '../support/serve';
import { useSuiteTempDir } from '../support/temp';

/**
 * The playbooks of a connection the analyst removed (Chromium, `dwb serve`): listed as
 * "removed connection (<id>)" rather than by their task type's `conn-<id>`, deletable, and
 * back with Undo; deleted, they wait in the Trash view, which restores them or, emptied,
 * removes them from the disk.
 */
const app = useAppInBrowser({ viewport: { width: 1400, height: 950 } });
const suiteDir = useSuiteTempDir();

describe('playbooks of a removed connection', () => {
  it('are named as such, can be deleted, and come back with Undo', async () => {
    const { page } = app;
    const api = await connectSocket(app.server);
    const connection = await api.invoke('connections/add', { name: 'Shops', target: { engine: 'sqlite', path: tinySqlite(suiteDir()) } });
    const folder = join(suiteDir(), 'own-playbooks');
    mkdirSync(folder, { recursive: true });
    writeVersion(
      folder,
      sealVersion({
        format: 'decision-workbench/playbook-version',
        version: 1,
        taskType: { scenario: `conn-${connection.id}`, db: 'rdb' },
        index: 1,
        parent: null,
        playbook: '1. Query the stores with their revenue.\n2. Finish with the best.',
        previous: '',
        batch: { questionIds: ['run-1'] },
        jobs: [],
        successRate: 1,
        cost: { calls: 2, promptTokens: 50, completionTokens: 10 },
        settings: { model: 'scripted', batchSize: 1, temperature: 0.7, reflection: 'sir', maxActions: 10, split: null },
        specifics: [],
        review: { status: 'proposed', pinned: false },
      }),
    );
    await api.invoke('playbooks/import', { directory: folder });

    await page.goto(app.server.url);
    await page.getByTestId('open-playbooks').click();
    const view = page.getByTestId('playbooks-view');
    const own = view.locator(`section[aria-label="Playbooks conn-${connection.id} rdb"]`);
    await own.waitFor();
    expect(await own.locator('h2').innerText()).toMatch(/^Shops × relational/);
    // A live connection's playbooks offer no deletion.
    expect(await own.getByTestId('delete-task-playbooks').count()).toBe(0);

    await api.invoke('connections/remove', { id: connection.id });
    await expect.poll(() => own.locator('h2').innerText()).toMatch(new RegExp(`^removed connection \\(${connection.id}\\) × relational`));
    await own.scrollIntoViewIfNeeded();
    await screenshot(page, 'playbooks-05-removed-connection');

    await own.getByTestId('delete-task-playbooks').click();
    await expect.poll(() => own.count()).toBe(0);
    const notice = view.getByTestId('playbooks-deleted');
    expect(await notice.innerText()).toContain(`Deleted the playbooks of removed connection (${connection.id}) × relational`);
    // Set aside, not gone.
    expect(existsSync(join(app.workspaceDir, 'playbooks', `conn-${connection.id}-rdb`))).toBe(false);

    await notice.getByTestId('undo-delete-playbooks').click();
    await own.waitFor();
    expect(await own.getByTestId('playbook-version').count()).toBe(1);
    expect(await view.getByTestId('playbooks-deleted').count()).toBe(0);
    expect(existsSync(join(app.workspaceDir, 'playbooks', `conn-${connection.id}-rdb`))).toBe(true);

    // Deleted again, they are in the trash (named by the connection, which is there too): restored from it…
    await own.getByTestId('delete-task-playbooks').click();
    await expect.poll(() => own.count()).toBe(0);
    await page.getByTestId('open-trash').click();
    const trash = page.getByTestId('trash-view');
    const item = trash.locator('[data-testid="trash-item"][data-kind="playbooks"]');
    await expect.poll(() => item.innerText()).toMatch(/^Shops × relational\s+1 playbook version · deleted /);
    await screenshot(page, 'playbooks-06-in-the-trash');
    await item.getByRole('button', { name: 'Restore playbooks Shops × relational' }).click();
    await expect.poll(() => item.count()).toBe(0);
    expect(existsSync(join(app.workspaceDir, 'playbooks', `conn-${connection.id}-rdb`))).toBe(true);
    // …or removed for good when the trash is emptied.
    await page.getByTestId('open-playbooks').click();
    await own.getByTestId('delete-task-playbooks').click();
    await expect.poll(() => own.count()).toBe(0);
    await page.getByTestId('open-trash').click();
    await expect.poll(() => item.count()).toBe(1);
    await trash.getByTestId('empty-trash').click();
    await page.getByTestId('confirm-empty-trash').getByTestId('confirm-empty').click();
    await expect.poll(() => trash.getByTestId('trash-item').count()).toBe(0);
    expect(existsSync(join(app.workspaceDir, 'playbooks', '.deleted'))).toBe(false);
    expect(existsSync(join(app.workspaceDir, 'playbooks', `conn-${connection.id}-rdb`))).toBe(false);
    api.close();
    expect(app.pageErrors).toEqual([]);
  }, 60_000);
});
