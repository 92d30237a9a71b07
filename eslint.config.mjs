import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

/**
 * Import boundaries follow where code runs (house style: folders say where code may run):
 * - src-main/contract is pure TypeScript: no Node, Electron or DOM, nothing else of src-main;
 * - src-renderer sees only the contract of src-main;
 * - the preload sees only the contract and its channel names.
 */
const nodeBuiltins = ['node:*', 'fs', 'path', 'os', 'child_process', 'worker_threads', 'crypto', 'http', 'net', 'url', 'util', 'stream'];

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
    ignores: ['src-main/contract/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: 'src-renderer', message: 'Main-process code never imports the renderer.' }] },
      ],
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
            { group: ['../*', '!../contract'], message: 'The contract imports nothing else of src-main.' },
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
          patterns: [
            { regex: '^\\.\\./(?!contract(/|$))', message: 'The preload imports only the contract and its channel names.' },
            { group: nodeBuiltins, message: 'Sandboxed preloads have no Node modules.' },
          ],
        },
      ],
    },
  },
);
