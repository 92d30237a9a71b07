import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot, screenshotDir, setModelInApp } from '../support/browser';
import { startScriptedOpenAiServer, type ScriptedOpenAiServer } from '../support/scripted-openai';
import { startServe, type ServeProcess } from '../support/serve';
import { useSuiteTempDir } from '../support/temp';
import { dwb, makeRunDirectory } from '../integration/reports/run-fixture';

const suiteDir = useSuiteTempDir();
let browser: Browser;
let runDir = '';
let out = '';

beforeAll(async () => {
  ({ runDir } = await makeRunDirectory(suiteDir()));
  out = join(suiteDir(), 'reports');
  mkdirSync(out, { recursive: true });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

/** Pages of a PDF as poppler counts them. */
function pdfPages(path: string): number {
  return Number(/^Pages:\s+(\d+)$/m.exec(execFileSync('pdfinfo', [path], { encoding: 'utf8' }))?.[1]);
}

function pdfText(path: string, page: number): string {
  return execFileSync('pdftotext', ['-f', String(page), '-l', String(page), '-layout', path, '-'], { encoding: 'utf8' });
}

describe('the exported report', () => {
  it('renders in Chromium offline, fetching nothing', async () => {
    const export_ = await dwb(['report', '--run', runDir, '--format', 'html', '--out', join(out, 'report.html'), '--signed-by', 'Ada Analyst', '--comment', 'Checked the krakow flows against the ledger.']);
    expect(export_.code, export_.stderr).toBe(0);
    const page: Page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`file://${join(out, 'report.html')}`);
    expect(requests).toEqual([`file://${join(out, 'report.html')}`]);
    expect(errors).toEqual([]);
    expect(await page.locator('.decision-card .decision').innerText()).toBe('krakow');
    expect(await page.locator('.strip.signed').innerText()).toContain('Ada Analyst');
    // Nine sections and the simulator's verification: the question names SWE and baltic_sea, so the decision is checked.
    expect(await page.locator('nav.toc li').count()).toBe(10);
    expect(await page.locator('.decision-card').innerText()).not.toContain('Not checked');
    expect(await page.locator('.step').count()).toBe(6);
    expect(await page.locator('ol.plan li.added').count()).toBeGreaterThan(0);
    // Hostile text from the model stays text.
    expect(await page.locator('script, img').count()).toBe(0);
    expect(await page.locator('#step-2').innerText()).toContain('<script>alert(1)</script>');
    await screenshot(page, 'report-01-cover');
    await page.locator('#trace').scrollIntoViewIfNeeded();
    await screenshot(page, 'report-02-trace');
    await page.locator('#integrity').scrollIntoViewIfNeeded();
    await screenshot(page, 'report-03-integrity');
    await page.close();
  });

  it('prints to a PDF with the expected pages: cover first, integrity last, every page numbered', async () => {
    const result = await dwb(['report', '--run', runDir, '--format', 'pdf', '--out', join(out, 'report.pdf'), '--signed-by', 'Ada Analyst'], 120_000);
    expect(result.code, result.stderr).toBe(0);
    const path = join(out, 'report.pdf');
    expect(readFileSync(path).subarray(0, 5).toString()).toBe('%PDF-');
    const pages = pdfPages(path);
    expect(pages).toBeGreaterThanOrEqual(4);
    expect(pages).toBeLessThanOrEqual(14);
    const first = pdfText(path, 1);
    // The eyebrow is letter-spaced, so pdftotext may read it as 'D E C I S I O N R E P O RT'
    // depending on Chromium's glyph placement; the words, not the spacing, are what is checked.
    expect(first.replace(/\s+/g, '')).toContain('DECISIONREPORT');
    expect(first).toContain('krakow');
    expect(first).toContain('Ada Analyst');
    expect(first).toContain(`Page 1 of ${pages}`);
    const last = pdfText(path, pages);
    expect(last).toContain('Integrity');
    expect(last).toContain(result.stdout.match(/integrity head ([0-9a-f]{64})/)?.[1] ?? 'no head');
    // Each page as an image, to be looked at (test-results/e2e/report-pdf-N.png).
    mkdirSync(screenshotDir, { recursive: true });
    // An earlier run's pages go first: pdftoppm numbers 1–9 and 01–12 apart, and only this PDF's are counted.
    for (const name of readdirSync(screenshotDir)) if (/^report-pdf-\d+\.png$/.test(name)) rmSync(join(screenshotDir, name));
    execFileSync('pdftoppm', ['-png', '-r', '60', path, join(screenshotDir, 'report-pdf')]);
    expect(readdirSync(screenshotDir).filter((name) => /^report-pdf-\d+\.png$/.test(name))).toHaveLength(pages);
  });

  it('fails with a clear message when there is no Chromium', async () => {
    const previous = process.env['CHROMIUM_PATH'];
    process.env['CHROMIUM_PATH'] = '/nonexistent/chromium';
    try {
      const result = await dwb(['report', '--run', runDir, '--format', 'pdf', '--out', join(out, 'none.pdf')]);
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toMatch(/^dwb report: unsupported: PDF export needs Chromium, and there is none at \/nonexistent\/chromium\. Install it/);
      expect(existsSync(join(out, 'none.pdf'))).toBe(false);
    } finally {
      if (previous === undefined) delete process.env['CHROMIUM_PATH'];
      else process.env['CHROMIUM_PATH'] = previous;
    }
  });
});

describe('the export dialog', () => {
  let server: ServeProcess;
  let model: ScriptedOpenAiServer;
  let page: Page;

  beforeAll(async () => {
    model = await startScriptedOpenAiServer(
      [
        { toolCalls: [{ name: 'plan', arguments: { steps: ['Read SWE trading power per node', 'Compare upstream nodes'] } }] },
        { toolCalls: [{ name: 'query', arguments: { query: "SELECT trade_node, base_trading_power FROM node_country WHERE country_name = 'SWE' ORDER BY trade_node" } }] },
        { toolCalls: [{ name: 'answer', arguments: { decision: 'krakow', rationale: 'SWE holds the most power in **krakow**.' } }] },
      ],
      { models: ['scripted-model'] },
    );
    server = await startServe(join(suiteDir(), 'workspace'));
    page = await browser.newPage({ viewport: { width: 1400, height: 950 } });
  });

  afterAll(async () => {
    await server?.stop();
    await model?.close();
  });

  it('previews, signs off, exports and opens the report of a run made in the app', async () => {
    await page.goto(server.url);
    await setModelInApp(page, model.baseUrl);
    await page.getByTestId('run-question').first().click();
    await page.getByTestId('run-composer').getByTestId('start-run').click();
    await expect.poll(() => page.getByTestId('run-status').innerText(), { timeout: 20_000 }).toBe('Decided');

    await page.getByTestId('export-report').click();
    const dialog = page.getByTestId('export-dialog');
    await dialog.waitFor();
    const preview = page.frameLocator('[data-testid="report-preview"]');
    await expect.poll(() => preview.locator('.decision-card .decision').innerText(), { timeout: 20_000 }).toBe('krakow');
    await dialog.getByLabel('Signed off by').fill('Ada Analyst');
    await dialog.getByLabel('Sign-off comment').fill('Approved for the board.');
    await expect.poll(() => preview.locator('.strip.signed').innerText().catch(() => ''), { timeout: 20_000 }).toContain('Ada Analyst');
    await screenshot(page, 'report-04-export-dialog');
    const head = (await dialog.getByTestId('report-head').getAttribute('title')) ?? '';

    for (const format of ['JSON bundle', 'HTML'] as const) {
      await dialog.getByLabel(format).check();
      await dialog.getByTestId('export-report-file').click();
      await expect.poll(() => dialog.getByTestId('export-result').innerText()).toMatch(format === 'HTML' ? /\.html/ : /\.json/);
    }
    // Browser mode: the browser downloads the file too, said once its copy is fetched; never the bundle's name beside the HTML's path.
    await expect.poll(() => dialog.getByTestId('export-downloaded').innerText()).toMatch(/\.html$/);
    const saved = (await dialog.getByTestId('export-path').innerText()).trim();
    expect(saved).toMatch(/\.html$/);
    expect(readFileSync(saved, 'utf8')).toContain(head);
    const bundlePath = saved.replace(/\.html$/, '.json');
    // Browser mode signs with the analyst key in DWB_CONFIG_DIR (made by makeRunDirectory), which this process trusts.
    const verify = await dwb(['verify', '--head', head, bundlePath]);
    expect(verify.stdout).toMatch(/^verified\nsigned by Ada Analyst \(SHA256:[A-Za-z0-9+/]{43}\): the seal\nsigned by Ada Analyst \(SHA256:[A-Za-z0-9+/]{43}\): sign-off \(seal entry 1, [^)]+\)\n$/);

    const popup = page.waitForEvent('popup');
    await dialog.getByTestId('open-export').click();
    const opened = await popup;
    await opened.waitForLoadState();
    expect(await opened.locator('.decision-card .decision').innerText()).toBe('krakow');
    await opened.close();
  });
});
