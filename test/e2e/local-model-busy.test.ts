import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, expect, it } from 'vitest';
import { describeOrNotRun } from '../servers/not-run';
import { openRunComposer, screenshot, useAppInBrowser } from '../support/browser';
import { testModel } from '../support/test-model';

const model = testModel();

/** Two CPU-bound processes beside the run, each bounded to twenty minutes should the test be killed. */
function startBurners(): ChildProcess[] {
  const busyLoop = 'const end = Date.now() + 20 * 60 * 1000; while (Date.now() < end) {}';
  return [0, 1].map(() => spawn(process.execPath, ['-e', busyLoop], { stdio: 'ignore' }));
}

describeOrNotRun('a local model on a busy machine: threads auto, the reply seen forming in the run bar', model.unavailable, () => {
  const app = useAppInBrowser({ viewport: { width: 1400, height: 950 } });
  const burners: ChildProcess[] = [];
  afterAll(() => {
    for (const burner of burners) burner.kill('SIGKILL');
  });

  it('with two busy processes beside it, a PlanRAG run on the DQA demo shows its tool-call replies as they form and ends with a clear status', async () => {
    burners.push(...startBurners());
    await app.page.goto(app.server.url);
    await app.page.getByTestId('open-model-settings').click();
    const dialog = app.page.getByTestId('model-settings');
    await dialog.getByTestId('preset-local').click();
    await dialog.getByLabel('GGUF file path').fill(model.path!);
    await dialog.getByTestId('add-local-model').click();
    const row = dialog.getByTestId('local-model');
    await row.waitFor();
    await row.getByRole('radio').check();
    // Threads left empty: auto. The panel says which count it measured fastest, with the rates.
    expect(await dialog.getByLabel('Threads').getAttribute('placeholder')).toBe('auto');
    await dialog.getByLabel('Context size').fill('4096');
    await row.getByRole('button', { name: 'Load' }).click();
    await expect
      .poll(() => row.getByTestId('local-model-state').innerText(), { timeout: 300_000 })
      .toMatch(/^Loaded in [\d.]+ s · \d+ threads \(auto: 1: [\d.]+(, \d+: [\d.]+)* tokens\/s\) · context 4096 · CPU$/);
    await dialog.getByTestId('save-model').click();
    await expect.poll(() => app.page.getByTestId('model-summary').innerText()).toContain('local model · loaded');

    // Every change of the streamed text is noted with the step the bar showed at that moment.
    // (A string: the test code is type-checked without the DOM library.)
    await app.page.evaluate(`
      window.streamSeen = [];
      new MutationObserver(() => {
        const streamed = document.querySelector('[data-testid="run-streamed"]');
        const bar = document.querySelector('[data-testid="run-bar"]');
        if (!streamed || !bar) return;
        const step = Number((/step (\\d+)\\//.exec(bar.textContent || '') || [])[1] || -1);
        const last = window.streamSeen[window.streamSeen.length - 1];
        if (!last || last.text !== streamed.textContent) window.streamSeen.push({ text: streamed.textContent, step });
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    `);
    const composer = await openRunComposer(app.page);
    expect(await composer.getByLabel('Run connection').locator('option:checked').innerText()).toBe('DQA Locating 1445 (demo)');
    await composer.getByTestId('start-run').click();
    const status = app.page.getByTestId('run-status');
    await expect.poll(() => status.innerText()).toBe('Running');
    await expect.poll(() => app.page.getByTestId('run-threads').innerText()).toMatch(/^\d+ threads? \(auto\)$/);

    const stepOf = async (): Promise<number> => Number(/step (\d+)\//.exec(await app.page.getByTestId('run-bar').innerText())?.[1] ?? 0);
    // The first reply forms in the bar while its step has not ended (the bar still says step 0).
    await expect.poll(async () => (await status.innerText()) !== 'Running' || (await stepOf()) >= 1, { timeout: 900_000, interval: 1000 }).toBe(true);
    const seen = (await app.page.evaluate('window.streamSeen')) as { text: string; step: number }[];
    const beforeFirstStep = seen.filter((entry) => entry.step === 0 && entry.text.length > 0);
    expect(beforeFirstStep.length, JSON.stringify(seen.slice(0, 5))).toBeGreaterThan(1);
    // The bar shows the reply's tail; its first pieces are the start of the tool call's JSON.
    expect(beforeFirstStep.some((entry) => entry.text.includes('"tool"'))).toBe(true);
    // While a call runs, the bar gives its pace and how long since the last token.
    if ((await status.innerText()) === 'Running') {
      await expect.poll(() => app.page.getByTestId('run-stream-rate').innerText(), { timeout: 600_000 }).toMatch(/^(\d+\.\d tokens\/s · )?last token \d+ s ago$/);
    }
    await screenshot(app.page, 'local-model-busy-01-streamed');

    // The run goes on under the load; the analyst stops it if it has not ended by the fourth call.
    await expect.poll(async () => (await status.innerText()) !== 'Running' || (await stepOf()) >= 4, { timeout: 1_200_000, interval: 2000 }).toBe(true);
    if ((await status.innerText()) === 'Running') {
      await app.page.getByTestId('stop-run').click();
      await expect.poll(() => status.innerText(), { timeout: 120_000 }).not.toBe('Running');
    }
    expect(await status.innerText()).toMatch(/^(Decided|Stopped: step limit|Failed|Cancelled|Stopped by the analyst)$/);
    // A failure says why in words, never an internal message: a stall names the timeout; the
    // same failing call stops at three; replies that kept repeating (SmolLM2 samples at the
    // technique's temperature, so which stop a run meets varies) stop at the repair limit.
    if ((await status.innerText()) === 'Failed') {
      expect(await app.page.getByTestId('run-message').innerText()).toMatch(/produced no token for|same failing \w+ call 3 times|could not be used after \d+ repair attempts: the reply kept repeating .+ and was cut off/);
    }
    await screenshot(app.page, 'local-model-busy-02-ended');
    expect(app.pageErrors).toEqual([]);
  }, 2_400_000);
});
