import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { simulate, devQuestions, writeQuestionFile } from '../support/dqa-technique-model';
import { autoplanScript } from '../support/autoplan-script';
import { openRunComposer, screenshot, setModelInApp, useAppInBrowser } from '../support/browser';
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
});
