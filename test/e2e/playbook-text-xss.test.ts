import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { autoplanScript } from '../support/autoplan-script';
import { screenshot, setModelInApp, useAppInBrowser } from '../support/browser';
import { devQuestions, simulate, writeQuestionFile } from '../support/dqa-technique-model';
import { liveFindings } from '../support/live-markup';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer } from '../support/scripted-openai';
import { useSuiteTempDir } from '../support/temp';

/**
 * Issue 26, item 8: a playbook AutoPlan writes is shown in the playbooks view (its text, the
 * diff between versions) as text. Training writes two hostile versions; neither may run a
 * script or leave a live element in the page.
 */
const app = useAppInBrowser({ viewport: { width: 1500, height: 1100 } });
const suiteDir = useSuiteTempDir();
const servers: ScriptedOpenAiServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

const FIRST = '1. Query the home node. <img src=x onerror="window.__pwned=1">\n2. Finish with its largest feeder. <script>window.__pwned=2</script>';
const SECOND = '1. Query the home node <svg onload="window.__pwned=3"></svg>.\n2. See [the guide](javascript:window.__pwned=4).\n3. Finish with the best node. <iframe srcdoc="<script>parent.__pwned=5</script>"></iframe>';

describe('playbook text in the app stays text', () => {
  it('trains two hostile playbook versions; their text and diff are shown, nothing runs, nothing is live', async () => {
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
    await view.getByLabel('Training questions file').fill(file);
    await view.getByLabel('Batch size').fill('2');
    await view.getByTestId('train-playbook').click();
    const training = view.getByTestId('training-item').first();
    await expect.poll(() => training.getAttribute('data-status'), { timeout: 120_000 }).toBe('finished');
    expect(trainer.failures).toEqual([]);

    const versions = view.getByTestId('playbook-version');
    await expect.poll(() => versions.count()).toBe(2);
    const detail = view.getByTestId('playbook-detail');
    await versions.nth(1).getByTestId('open-playbook').click();
    const diff = detail.getByTestId('playbook-diff');
    await expect.poll(() => diff.innerText()).toContain('<svg onload="window.__pwned=3"></svg>');
    expect(await diff.innerText()).toContain('<img src=x onerror="window.__pwned=1">');
    expect(await liveFindings(page)).toEqual({ pwned: null, elements: [], handlers: [], links: [] });
    await versions.nth(0).getByTestId('open-playbook').click();
    await expect.poll(() => detail.innerText()).toContain('<script>window.__pwned=2</script>');
    expect(await liveFindings(page)).toEqual({ pwned: null, elements: [], handlers: [], links: [] });
    await screenshot(page, 'playbook-text-xss');
    console.log('playbook xss notebook: 2 trained versions, 5 payloads in their text, shown as text and diff; window.__pwned unset, 0 live elements, 0 inline handlers, 0 script links');
    expect(app.pageErrors).toEqual([]);
  });
});
