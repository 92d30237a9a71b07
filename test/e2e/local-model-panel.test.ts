import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { screenshot, useAppInBrowser } from '../support/browser';
import { realisticGgufHeader } from '../support/gguf-file';
import { useSuiteTempDir } from '../support/temp';

/**
 * The local-model panel of the model settings: one Load (the model's own row, which takes the
 * threads and context size), and a "Use for runs" that says why it is disabled. The file is a
 * GGUF header only: adding reads the header, and nothing here loads it.
 */
const files = useSuiteTempDir();
const app = useAppInBrowser({ viewport: { width: 1280, height: 720 } });

describe('the local-model panel', () => {
  it('has one Load button, the row’s, and a disabled "Use for runs" with its reason beside it until a model is chosen', async () => {
    const modelPath = join(files(), 'tiny-llama.gguf');
    writeFileSync(modelPath, realisticGgufHeader());
    await app.page.goto(app.server.url);
    await app.page.getByTestId('open-model-settings').click();
    const dialog = app.page.getByTestId('model-settings');
    await dialog.getByTestId('preset-local').click();
    const useForRuns = dialog.getByTestId('save-model');
    const hint = dialog.getByTestId('save-model-hint');
    const loadButtons = dialog.getByRole('button', { name: 'Load', exact: true });

    // No model files: nothing to load, and the reason says what to do first.
    await expect.poll(() => hint.innerText()).toBe('Add a GGUF model file above first');
    expect(await useForRuns.innerText()).toBe('Use for runs');
    expect(await useForRuns.isDisabled()).toBe(true);
    expect(await useForRuns.getAttribute('aria-describedby')).toBe('save-model-hint');
    expect(await loadButtons.count()).toBe(0);

    await dialog.getByLabel('GGUF file path').fill(modelPath);
    await dialog.getByTestId('add-local-model').click();
    const row = dialog.getByTestId('local-model');
    await row.waitFor();
    expect(await row.getByTestId('local-model-state').innerText()).toBe('Not loaded');
    // One Load in the whole dialog, in the model's row; the footer has none.
    expect(await loadButtons.count()).toBe(1);
    expect(await row.getByRole('button', { name: 'Load', exact: true }).count()).toBe(1);
    expect(await dialog.locator('.dialog-footer').getByRole('button').allInnerTexts()).toEqual(['Cancel', 'Use for runs']);
    await expect.poll(() => hint.innerText()).toBe('Choose a model in the list to use it for runs');
    expect(await useForRuns.isDisabled()).toBe(true);
    // The reason sits beside the button, on the same line, and can be read (not hidden or clipped).
    const [hintBox, buttonBox] = await Promise.all([hint.boundingBox(), useForRuns.boundingBox()]);
    expect(hintBox && buttonBox && Math.abs(hintBox.y + hintBox.height / 2 - (buttonBox.y + buttonBox.height / 2))).toBeLessThan(8);
    expect(hintBox!.x).toBeLessThan(buttonBox!.x);
    await screenshot(app.page, 'local-model-panel-01-reason');

    // Choosing the model enables "Use for runs" and the reason goes.
    await row.getByRole('radio').check();
    await expect.poll(() => useForRuns.isDisabled()).toBe(false);
    expect(await hint.count()).toBe(0);
    expect(await useForRuns.getAttribute('aria-describedby')).toBeNull();
    await screenshot(app.page, 'local-model-panel-02-chosen');

    // The endpoint form says why its Save is disabled too.
    await dialog.getByTestId('preset-ollama').click();
    await dialog.getByLabel('Model', { exact: true }).fill('');
    await expect.poll(() => hint.innerText()).toBe('Name the model to save');
    expect(await useForRuns.innerText()).toBe('Save');
    expect(await useForRuns.isDisabled()).toBe(true);
    expect(app.pageErrors).toEqual([]);
  });
});
