import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import layers from './eslint-rules/layer-floors.mjs';

/**
 * Import boundaries follow where code runs (house style: folders say where code may run):
 * - src-main/contract is pure TypeScript: no Node, Electron or DOM, nothing else of src-main;
 * - src-renderer sees only the contract of src-main;
 * - the preload sees only the contract and its channel names;
 * - inside each process, folders stand on floors (below; src-main calls them layers); a folder
 *   imports its own floor and the ones below, never one above, and only the Electron shell
 *   (app/, preload/) imports electron.
 * Floors are judged by resolved path (eslint-rules/layer-floors.mjs), so no spelling of an
 * import (`../../../src-main/services/router`, `../contract/../services/router`) gets round them.
 */
const nodeBuiltins = ['node:*', 'fs', 'path', 'os', 'child_process', 'worker_threads', 'crypto', 'http', 'net', 'url', 'util', 'stream'];
const projectRoot = path.dirname(fileURLToPath(import.meta.url));

/**
 * The layers of src-main, lowest first (ARCHITECTURE.md › Layers inside `src-main` says what
 * each holds and why it sits there). The contract and the preload are held tighter (`only`).
 */
const mainLayers = [
  ['contract'],
  ['connectors', 'llm', 'audit', 'native'],
  ['dqa'],
  ['importers'],
  ['simulators', 'whatif', 'workspace', 'secrets'],
  ['engine'],
  ['reports', 'dellma-data'],
  ['benchmark'],
  ['services'],
  ['app', 'cli', 'server', 'preload'],
];

/**
 * The floors of src-renderer, lowest first (ARCHITECTURE.md › Floors inside `src-renderer`):
 * the store and the client; shared React pieces; the editor and the grid; widgets built on
 * them; the features; the views that compose features; the app shell. main.tsx is the entry.
 */
const rendererFloors = [
  ['api', 'state'],
  ['ui'],
  ['editor', 'grid'],
  ['plan-graph', 'connections'],
  ['cells', 'runs', 'settings', 'reports', 'commands'],
  ['notebook', 'sidebar', 'benchmarks', 'search', 'trash', 'playbooks'],
  ['app'],
];

const electronShell = ['app', 'preload'];

const mainFloorRule = {
  projectRoot,
  root: 'src-main',
  floors: mainLayers,
  only: { contract: [], preload: ['contract'] },
  reaches: [],
  // Inside the engine: a tool works through its narrow ToolContext and returns the state changes it
  // makes; the executor applies them. It never holds the run or a technique (ARCHITECTURE.md › Decision runs).
  apart: [
    { from: 'engine/tools', to: 'engine/run-context', why: 'a tool sees only its ToolContext (engine/tools/tool-context.ts) and returns its state changes' },
    { from: 'engine/tools', to: 'engine/techniques', why: 'techniques choose tools, never the other way round' },
  ],
  outsideMessage: 'Main-process code imports only src-main (never the renderer).',
  word: 'layer',
  table: 'mainLayers',
  doc: 'ARCHITECTURE.md › Layers inside `src-main`',
};

const rendererFloorRule = {
  projectRoot,
  root: 'src-renderer',
  floors: rendererFloors,
  reaches: ['src-main/contract'],
  outsideMessage: 'The renderer talks to the main process only through src-main/contract.',
  word: 'floor',
  table: 'rendererFloors',
  doc: 'ARCHITECTURE.md › Floors inside `src-renderer`',
};

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**', 'dist/**', 'test-results/**', '.tmp/**', 'test/servers/neo4j-harness/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['bin/**/*.js', 'scripts/**/*.{js,mjs,cjs}'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly', console: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['scripts/**/*.mjs'],
    languageOptions: { sourceType: 'module' },
  },
  {
    languageOptions: { parserOptions: { projectService: false } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['src-main/**/*.ts'],
    plugins: { dwb: layers },
    rules: { 'dwb/layer-floors': ['error', mainFloorRule] },
  },
  {
    files: ['src-main/**/*.ts'],
    ignores: ['src-main/contract/**', 'src-main/preload/**', ...electronShell.map((folder) => `src-main/${folder}/**`)],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['electron'], message: 'Only the Electron shell (src-main/app) imports electron; inject what you need from it.' }] }],
    },
  },
  {
    files: ['src-main/contract/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: nodeBuiltins, message: 'The contract is shared with the renderer: no Node modules.' },
            { group: ['electron', 'react', 'react-dom'], message: 'The contract is pure TypeScript.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src-renderer/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks, dwb: layers },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'dwb/layer-floors': ['error', rendererFloorRule],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: nodeBuiltins, message: 'The renderer runs in a sandboxed page: no Node modules.' },
            { group: ['electron'], message: 'The renderer reaches Electron only through the preload bridge.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src-main/preload/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: nodeBuiltins, message: 'Sandboxed preloads have no Node modules.' }],
        },
      ],
    },
  },
);
