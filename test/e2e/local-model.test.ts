import Database from 'better-sqlite3';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeOrNotRun } from '../servers/not-run';
import { openRunComposer, screenshot, useAppInBrowser } from '../support/browser';
import { testModel } from '../support/test-model';

const model = testModel();

describeOrNotRun('the model manager: a local GGUF model', model.unavailable, () => {
  const app = useAppInBrowser({ viewport: { width: 1400, height: 950 } });

  it('adds the GGUF file, shows what its header says, loads it with a progress bar and selects the Local model preset for runs', async () => {
    await app.page.goto(app.server.url);
    await app.page.getByTestId('open-model-settings').click();
    const dialog = app.page.getByTestId('model-settings');
    await dialog.getByTestId('preset-local').click();
    expect(await dialog.getByTestId('preset-local').getAttribute('aria-pressed')).toBe('true');

    // A file that is not a model is refused with the reason, and nothing is added.
    await dialog.getByLabel('GGUF file path').fill('/etc/hostname');
    await dialog.getByTestId('add-local-model').click();
    await expect.poll(() => dialog.getByRole('alert').innerText()).toContain('is not a GGUF model file');
    expect(await dialog.getByTestId('local-model').count()).toBe(0);

    await dialog.getByLabel('GGUF file path').fill(model.path!);
    await dialog.getByTestId('add-local-model').click();
    const row = dialog.getByTestId('local-model');
    await row.waitFor();
    expect(await row.getByTestId('local-model-meta').innerText()).toMatch(/^\d+ MB · llama · MOSTLY_Q4_1 · context 8192 · chat template$/);
    expect(await row.getByTestId('local-model-state').innerText()).toBe('Not loaded');

    // The progress bar can come and go within a second: a page observer notes every value it showed.
    // (A string: the test code is type-checked without the DOM library.)
    await app.page.evaluate(`
      window.progressSeen = [];
      new MutationObserver(() => {
        const bar = document.querySelector('[data-testid="local-model-progress"]');
        if (bar) window.progressSeen.push(bar.value);
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    `);
    await row.getByRole('radio').check();
    await dialog.getByLabel('Threads').fill('1');
    // Room for the system prompt with the schema summary and every tool (about 2,300 tokens).
    await dialog.getByLabel('Context size').fill('4096');
    await row.getByRole('button', { name: 'Load' }).click();
    await expect.poll(() => row.getByTestId('local-model-state').innerText(), { timeout: 120_000 }).toMatch(/^Loaded in [\d.]+ s · 1 threads · context 4096 · (CPU|GPU .*)$/);
    const seen = (await app.page.evaluate('window.progressSeen')) as number[];
    expect(seen.length).toBeGreaterThan(0);
    await screenshot(app.page, 'local-model-01-loaded');

    await dialog.getByTestId('save-model').click();
    await expect.poll(() => app.page.getByTestId('model-summary').innerText()).toContain('local model · loaded');
  });

  it('runs the demo DQA question with the local model: every reply is a usable, grammar-constrained call', async () => {
    const cellKinds = (): Promise<(string | null)[]> => app.page.getByTestId('cell').evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-cell-kind')));
    const kindsBefore = await cellKinds();
    const composer = await openRunComposer(app.page);
    expect(await composer.getByLabel('Run connection').locator('option:checked').innerText()).toBe('DQA Locating 1445 (demo)');
    await composer.getByTestId('start-run').click();
    const status = app.page.getByTestId('run-status');
    await expect.poll(() => status.innerText()).toBe('Running');
    // A 135M model on a busy 2-core machine takes up to a minute a call: the run is watched for
    // its first replies (plan, queries); the analyst stops it if it has not ended by the fifth.
    const stepOf = async (): Promise<number> => Number(/step (\d+)\//.exec(await app.page.getByTestId('run-bar').innerText())?.[1] ?? 0);
    await expect.poll(async () => (await status.innerText()) !== 'Running' || (await stepOf()) >= 5, { timeout: 900_000, interval: 2000 }).toBe(true);
    await screenshot(app.page, 'local-model-02-run');
    if ((await status.innerText()) === 'Running') {
      await app.page.getByTestId('stop-run').click();
      await expect.poll(() => status.innerText(), { timeout: 60_000 }).not.toBe('Running');
    }
    expect(await status.innerText()).toMatch(/^(Decided|Stopped: step limit|Failed|Cancelled|Stopped by the analyst)$/);
    // A failed run says which clear stop it met: the same failing call three times, or replies
    // that kept repeating themselves past the repair limit (SmolLM2 samples at the technique's
    // temperature, so which one a run meets varies from run to run).
    if ((await status.innerText()) === 'Failed') {
      expect(await app.page.getByTestId('run-bar').innerText()).toMatch(/same failing \w+ call 3 times|could not be used after \d+ repair attempts: the reply kept repeating .+ and was cut off/);
    }
    // The cells the run added, after the demo notebook's own.
    const kinds = (await cellKinds()).slice(kindsBefore.length);

    // What the run log says of every reply: each held to the tools by the grammar.
    const database = new Database(join(app.workspaceDir, 'workspace.sqlite'), { readonly: true });
    try {
      const events = (database.prepare('SELECT event FROM run_events ORDER BY run_id, seq').pluck().all() as string[]).map((text) => JSON.parse(text) as { type: string; constrained?: string });
      const responses = events.filter((event) => event.type === 'model-response');
      expect(responses.length).toBeGreaterThanOrEqual(2);
      expect(responses.map((event) => event.constrained)).toEqual(responses.map(() => 'grammar'));
      // The notebook shows what the model did: its plan and its queries, each as a cell of its kind.
      const eventTypes = events.map((event) => event.type).join(', ');
      expect(kinds.includes('plan'), `cells ${kinds.join(', ')}; events ${eventTypes}`).toBe(events.some((event) => event.type === 'plan'));
      expect(kinds.includes('query'), `cells ${kinds.join(', ')}; events ${eventTypes}`).toBe(events.some((event) => event.type === 'query-start'));
      expect(events.some((event) => event.type === 'plan' || event.type === 'model-repair')).toBe(true);
      // Every reply parses under the grammar; the only repair is of a reply cut for repeating itself (issue 29).
      for (const repair of events.filter((event) => event.type === 'model-repair')) expect((repair as { problem?: string }).problem).toMatch(/^the reply kept repeating .+ and was cut off; write each value once$/);
    } finally {
      database.close();
    }
    await app.page.getByTestId('cell').last().scrollIntoViewIfNeeded();
    await screenshot(app.page, 'local-model-03-ended');
    expect(app.pageErrors).toEqual([]);
  }, 1_100_000);
});
