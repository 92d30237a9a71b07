import { expect, it } from 'vitest';
import { describeOrNotRun } from '../servers/not-run';
import { screenshot, useAppInBrowser } from '../support/browser';
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
    await dialog.getByLabel('Context size').fill('512');
    await row.getByRole('button', { name: 'Load' }).click();
    await expect.poll(() => row.getByTestId('local-model-state').innerText(), { timeout: 120_000 }).toMatch(/^Loaded in [\d.]+ s · 1 threads · context 512 · (CPU|GPU .*)$/);
    const seen = (await app.page.evaluate('window.progressSeen')) as number[];
    expect(seen.length).toBeGreaterThan(0);
    await screenshot(app.page, 'local-model-01-loaded');

    await dialog.getByTestId('save-model').click();
    await expect.poll(() => app.page.getByTestId('model-summary').innerText()).toContain('local model · loaded');
  });
});
