import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// The CLIs the tests start keep parsed dumps in a scratch folder, never in the user's
// ~/.cache/dwb/dumps (tests that look at the cache give their own folder).
process.env['DWB_DUMP_CACHE_DIR'] = join(tmpdir(), 'dwb-test-dump-cache');
// Nor the user's config folder (signing keys, trusted keys): a run of the suite gets one of its
// own, which tests that need their own (a key, none) override with DWB_CONFIG_DIR.
process.env['DWB_CONFIG_DIR'] = join(tmpdir(), `dwb-test-config-${process.pid}`);
// Nothing a test does may reach the developer's own keyring: the CLI keeps keys in files unless a
// suite starts a keyring of its own (test/support/private-keyring.ts) and says DWB_KEYRING=auto.
process.env['DWB_KEYRING'] = 'off';

/**
 * Three projects: `node` (unit and integration tests against real database files and servers),
 * `security` (the attack suite the project keeps) and `e2e` (the built app served in browser
 * mode, driven in Debian's Chromium). E2E needs `electron-vite build` first, which `npm test`
 * does.
 */
export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    projects: [
      {
        test: {
          name: 'node',
          include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 180_000,
        },
      },
      {
        // Attacks the project keeps (`npm run test:security`): generated write and escape
        // attempts per engine, planted instructions, server fuzz, report tampering. Each file
        // prints its figures; they also run in `npm test`.
        test: {
          name: 'security',
          include: ['test/security/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
