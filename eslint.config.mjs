import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

/**
 * Import boundaries follow where code runs (house style: folders say where code may run):
 * - src-main/contract is pure TypeScript: no Node, Electron or DOM, nothing else of src-main;
 * - src-renderer sees only the contract of src-main;
 * - the preload sees only the contract and its channel names;
 * - inside src-main, folders stand in layers (below); a folder imports its own layer and the
 *   ones below, never one above, and only the Electron shell (app/, preload/) imports electron.
 */
const nodeBuiltins = ['node:*', 'fs', 'path', 'os', 'child_process', 'worker_threads', 'crypto', 'http', 'net', 'url', 'util', 'stream'];

/**
 * The layers of src-main, lowest first (ARCHITECTURE.md › Layers says what each holds and why
 * it sits there). The contract's own rule (below) is stricter: it imports nothing else.
 */
const mainLayers = [
  ['contract'],
  ['connectors', 'llm', 'audit', 'native'],
  ['dqa'],
  ['importers'],
  ['simulators', 'whatif', 'workspace', 'secrets'],
  ['engine'],
  ['reports'],
  ['benchmark'],
  ['services'],
  ['app', 'cli', 'server', 'preload'],
];
const electronShell = ['app', 'preload'];
const rendererPattern = { regex: 'src-renderer', message: 'Main-process code never imports the renderer.' };

/** One block per src-main folder (but the contract and the preload, which have their own): no imports from a higher layer. */
function layerBlocks() {
  return mainLayers.flatMap((layer, index) => {
    const higher = mainLayers.slice(index + 1).flat();
    return layer
      .filter((folder) => folder !== 'contract' && folder !== 'preload')
      .map((folder) => ({
        files: [`src-main/${folder}/**/*.ts`],
        rules: {
          'no-restricted-imports': [
            'error',
            {
              patterns: [
                rendererPattern,
                ...(higher.length
                  ? [{ regex: `^(\\.\\./)+(${higher.join('|')})(/|$)`, message: `${folder}/ is in layer ${index} of src-main; it imports only its own layer and lower ones (eslint.config.mjs mainLayers, ARCHITECTURE.md › Layers).` }]
                  : []),
                ...(electronShell.includes(folder) ? [] : [{ group: ['electron'], message: 'Only the Electron shell (src-main/app) imports electron; inject what you need from it.' }]),
              ],
            },
          ],
        },
      }));
  });
}

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
      'no-restricted-imports': ['error', { patterns: [rendererPattern, { group: ['electron'], message: 'Only the Electron shell (src-main/app) imports electron.' }] }],
    },
  },
  ...layerBlocks(),
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
