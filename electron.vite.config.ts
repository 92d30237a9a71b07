import { resolve } from 'node:path';
import { defineConfig, externalizeDepsPlugin } from 'electron-vite';
import react from '@vitejs/plugin-react';

/**
 * Main-process bundles share one output folder (no `chunks/` subfolder) so that worker entries
 * can be found next to whichever chunk starts them: see src-main/connectors/worker-host.ts.
 */
const flatOutput = { entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' };

export default defineConfig({
  main: {
    plugins: [externalizeDepsPlugin()],
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: {
          app: resolve(__dirname, 'src-main/app/main.ts'),
          cli: resolve(__dirname, 'src-main/cli/main.ts'),
          'sqlite-worker': resolve(__dirname, 'src-main/connectors/sqlite/worker.ts'),
          'whatif-worker': resolve(__dirname, 'src-main/whatif/worker.ts'),
          'ladybug-worker': resolve(__dirname, 'src-main/connectors/ladybug/worker.ts'),
          'model-process': resolve(__dirname, 'src-main/llm/local/model-process.ts'),
          'model-header-worker': resolve(__dirname, 'src-main/llm/local/model-header-worker.ts'),
        },
        output: flatOutput,
      },
    },
  },
  preload: {
    plugins: [externalizeDepsPlugin()],
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { preload: resolve(__dirname, 'src-main/preload/preload.ts') },
        // Sandboxed preloads must be CommonJS.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src-renderer'),
    plugins: [react()],
    build: {
      outDir: 'out/renderer',
      rollupOptions: { input: resolve(__dirname, 'src-renderer/index.html') },
    },
  },
});
