import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeVersion } from '../../src-main/benchmark/playbook-training';
import { sealVersion } from '../../src-main/engine/techniques/autoplan/playbook';
import { seriousViolations } from '../support/axe';
import { simulate, devQuestions, writeQuestionFile } from '../support/dqa-technique-model';
import { autoplanScript } from '../support/autoplan-script';
import { openRunComposer, screenshot, setModelInApp, useAppInBrowser } from '../support/browser';
import { isDarkColour, shownColours } from '../support/contrast';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer } from '../support/scripted-openai';
import { messageText } from '../support/scripted-openai/script';
import { useSuiteTempDir } from '../support/temp';

const app = useAppInBrowser({ viewport: { width: 1500, height: 1100 } });
const suiteDir = useSuiteTempDir();
const servers: ScriptedOpenAiServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

const FIRST = '1. Query the home node.\n2. Finish with its largest feeder.';
const SECOND = '1. Query the home node and the nodes that flow into it.\n2. Compare their ingoing value and trading power.\n3. Finish with the best node.';

describe('playbooks in the app', () => {
  it('trains a playbook on dev questions, shows a version diff, accepts and pins it, and an AutoPlan run follows it', async () => {
    const questions = devQuestions('locating', ['L1', 'L2', 'L3', 'L4']);
    const file = writeQuestionFile(join(suiteDir(), 'questions.json'), 'locating', questions);
    const answers = new Map(questions.map((question) => [question.id, simulate('locating', question).best]));
    const trainer = await startScriptedOpenAiServer(autoplanScript({ questions, answers, playbooks: [FIRST, SECOND] }));
    servers.push(trainer);
    const { page } = app;
    await page.goto(app.server.url);
    await setModelInApp(page, trainer.baseUrl);

    await page.getByTestId('open-playbooks').click();
    const view = page.getByTestId('playbooks-view');
    await expect.poll(() => view.getByTestId('no-playbooks').count()).toBe(1);
    await view.getByLabel('Training questions file').fill(file);
    await view.getByLabel('Batch size').fill('2');
    await view.getByTestId('train-playbook').click();
    const training = view.getByTestId('training-item').first();
    await expect.poll(() => training.getAttribute('data-status'), { timeout: 120_000 }).toBe('finished');
    expect(trainer.failures).toEqual([]);
    expect(await training.innerText()).toContain('2 version(s) from 4 training question(s)');

    const versions = view.getByTestId('playbook-version');
    await expect.poll(() => versions.count()).toBe(2);
    expect(await versions.nth(0).innerText()).toMatch(/^v1\s+[0-9a-f]{12}\s+—\s+L1, L2\s+100%/);
    expect(await versions.nth(1).innerText()).toMatch(/^v2\s+[0-9a-f]{12}\s+[0-9a-f]{12}\s+L3, L4\s+100%.*proposed — review it/s);
    const v2 = versions.nth(1);
    const hash = (await v2.getAttribute('data-hash')) ?? '';

    await v2.getByTestId('open-playbook').click();
    const detail = view.getByTestId('playbook-detail');
    const diff = detail.getByTestId('playbook-diff');
    await expect.poll(() => diff.locator('[data-kind="added"]').count()).toBe(3);
    expect(await diff.locator('[data-kind="removed"]').allInnerTexts()).toEqual(['−1. Query the home node.', '−2. Finish with its largest feeder.']);
    expect(await diff.locator('[data-kind="added"]').first().innerText()).toBe('+1. Query the home node and the nodes that flow into it.');
    await screenshot(page, 'playbooks-01-diff');

    await detail.getByTestId('accept-playbook').click();
    await expect.poll(() => v2.getAttribute('data-status')).toBe('accepted');
    await detail.getByTestId('pin-playbook').click();
    await expect.poll(() => v2.getAttribute('data-pinned')).toBe('true');
    expect(await view.getByTestId('playbook-task').locator('h2').innerText()).toContain(`pinned ${hash.slice(0, 12)}`);
    await screenshot(page, 'playbooks-02-pinned');

    // The analyst edits v1 instead of accepting it as it is: the edit is a new accepted version whose parent is v1.
    const v1 = versions.nth(0);
    await v1.getByTestId('open-playbook').click();
    await detail.getByTestId('edit-playbook').click();
    const editor = detail.getByLabel('Edit the playbook');
    expect(await editor.inputValue()).toBe(FIRST);
    await editor.fill(`${FIRST}\n3. Never name a node before querying it.`);
    await detail.getByTestId('save-playbook-edit').click();
    await expect.poll(() => versions.count()).toBe(3);
    expect(await v1.getAttribute('data-status')).toBe('edited');
    const edit = versions.nth(2);
    expect(await edit.getAttribute('data-status')).toBe('accepted');
    expect(await edit.innerText()).toMatch(new RegExp(`^v1 \\(edit\\)\\s+[0-9a-f]{12}\\s+${(await v1.getAttribute('data-hash'))?.slice(0, 12) ?? ''}`));
    await expect.poll(() => detail.getByTestId('playbook-diff').locator('[data-kind="added"]').allInnerTexts()).toEqual(['+3. Never name a node before querying it.']);
    expect(await v2.getAttribute('data-pinned')).toBe('true');

    // A run on the demo's Locating data follows the pinned playbook.
    const runner = await startScriptedOpenAiServer([
      { content: 'Step 1: query the home node', toolCalls: [{ name: 'query', arguments: { query: "SELECT source, flow FROM flow WHERE dest = 'baltic_sea' ORDER BY flow DESC" } }] },
      { content: 'Step 3: finish with the best node', toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'krakow sends the most value.' } }] },
    ]);
    servers.push(runner);
    await setModelInApp(page, runner.baseUrl);
    await page.getByTestId('open-playbooks').click();
    const composer = await openRunComposer(page, { technique: 'autoplan' });
    await expect.poll(() => composer.getByTestId('playbook-note').innerText()).toContain(`locating × relational ${hash.slice(0, 12)}`);
    await composer.getByTestId('start-run').click();
    await expect.poll(() => page.getByTestId('run-status').innerText(), { timeout: 20_000 }).toBe('Decided');
    expect(runner.failures).toEqual([]);
    const opening = messageText(runner.chatRequests()[0]?.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });
    expect(opening).toContain(`# Playbook\n`);
    expect(opening).toContain(SECOND);
    expect(opening).not.toContain('Summary of');
    const plan = page.locator('[data-cell-kind="plan"]').last();
    await expect.poll(() => plan.innerText()).toContain('Compare their ingoing value and trading power.');
    await plan.scrollIntoViewIfNeeded();
    await screenshot(page, 'playbooks-03-run');
    expect(app.pageErrors).toEqual([]);
  });

  it('heads the playbooks of the analyst’s own data with the connection’s name, not its task type', async () => {
    const { page } = app;
    await page.getByTestId('open-playbooks').click();
    const view = page.getByTestId('playbooks-view');
    // The connection's id as the app knows it: the value of its choice under "Signed-off runs on".
    const connectionId = await view.getByLabel('Signed-off runs on').locator('option', { hasText: 'DQA Building USA 1836 (demo)' }).getAttribute('value');
    expect(connectionId).toMatch(/^[A-Za-z0-9_-]+$/);
    // A version trained from signed-off runs on that connection, as `dwb playbook train --out` writes it.
    const folder = join(suiteDir(), 'own-playbooks');
    mkdirSync(folder, { recursive: true });
    writeVersion(
      folder,
      sealVersion({
        format: 'decision-workbench/playbook-version',
        version: 1,
        taskType: { scenario: `conn-${connectionId ?? ''}`, db: 'rdb' },
        index: 1,
        parent: null,
        playbook: '1. Query the buildings with their cost.\n2. Finish with the cheapest.',
        previous: '',
        batch: { questionIds: ['run-1', 'run-2'] },
        jobs: [],
        successRate: 0.5,
        cost: { calls: 4, promptTokens: 100, completionTokens: 20 },
        settings: { model: 'scripted', batchSize: 2, temperature: 0.7, reflection: 'sir', maxActions: 10, split: null },
        specifics: [],
        review: { status: 'proposed', pinned: false },
      }),
    );
    await view.getByLabel('Playbook folder').fill(folder);
    await view.getByTestId('import-playbooks').click();
    const own = view.locator(`section[aria-label="Playbooks conn-${connectionId ?? ''} rdb"]`);
    await own.waitFor();
    expect(await own.locator('h2').innerText()).toBe('DQA Building USA 1836 (demo) × relational · nothing pinned: AutoPlan runs are refused until a version is pinned');
    expect(await own.getByTestId('playbook-version').innerText()).toMatch(/^v1\s+[0-9a-f]{12}\s+—\s+run-1, run-2\s+50%/);
    await own.scrollIntoViewIfNeeded();
    await screenshot(page, 'playbooks-04-own-data-heading');
    expect(app.pageErrors).toEqual([]);
  });

  it('shows a version’s diff in the dark theme with readable colours, and passes the axe audit there', async () => {
    // The app's Content-Security-Policy refuses injected scripts; this page bypasses it for axe-core.
    const page = await app.browser.newPage({ bypassCSP: true, colorScheme: 'dark', viewport: { width: 1500, height: 1100 } });
    try {
      await page.goto(app.server.url);
      await page.getByTestId('open-playbooks').click();
      const view = page.getByTestId('playbooks-view');
      const pinned = view.locator('[data-testid="playbook-version"][data-pinned="true"]');
      await pinned.getByTestId('open-playbook').click();
      const diff = view.getByTestId('playbook-diff');
      await expect.poll(() => diff.locator('[data-kind="removed"]').count()).toBe(2);
      expect(await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { dataset: Record<string, string> } } }).document.documentElement.dataset['theme'])).toBe('dark');
      for (const kind of ['added', 'removed', 'same'] as const) {
        const line = diff.locator(`[data-kind="${kind}"]`).first();
        if (kind === 'same' && (await line.count()) === 0) continue;
        const colours = await shownColours(line);
        expect(colours.ratio, `${kind} line ${colours.color} on ${colours.background}`).toBeGreaterThanOrEqual(4.5);
      }
      // Dark backgrounds, not the light theme's pale green and red.
      for (const kind of ['added', 'removed'] as const) {
        const { background } = await shownColours(diff.locator(`[data-kind="${kind}"]`).first());
        expect(isDarkColour(background), `${kind} background ${background}`).toBe(true);
      }
      await screenshot(page, 'playbooks-05-dark-diff');
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
