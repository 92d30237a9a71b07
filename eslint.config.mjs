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
 * - inside src-main, folders stand in layers (below); a folder imports its own layer and the
 *   ones below, never one above, and only the Electron shell (app/, preload/) imports electron.
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

const electronShell = ['app', 'preload'];

const mainFloorRule = {
  projectRoot,
  root: 'src-main',
  floors: mainLayers,
  only: { contract: [], preload: ['contract'] },
  reaches: [],
  outsideMessage: 'Main-process code imports only src-main (never the renderer).',
  word: 'layer',
  table: 'mainLayers',
  doc: 'ARCHITECTURE.md › Layers inside `src-main`',
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
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+src-main/(?!contract(/|$))',
              message: 'The renderer talks to the main process only through src-main/contract.',
            },
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
