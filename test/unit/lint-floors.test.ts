import { basename, join } from 'node:path';
import { ESLint, type Linter } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/fixtures';

/**
 * The layer floors of eslint.config.mjs, probed through ESLint's own API with the project's real
 * configuration: a probe file is placed (virtually, by its path) on a floor and imports another.
 * The floors must hold whatever the import's spelling, since they are judged on resolved paths.
 */

const rule = 'dwb/layer-floors';
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: repoRoot });
});

/** Lints a probe that uses what it imports (so no other rule has anything to say). */
async function lintProbe(file: string, code: string): Promise<Linter.LintMessage[]> {
  const [result] = await eslint.lintText(code, { filePath: join(repoRoot, file) });
  return result!.messages;
}

const importing = (specifier: string): string => `import { probed } from '${specifier}';\nexport const probe = probed;\n`;

async function floorMessages(file: string, code: string): Promise<string[]> {
  const messages = await lintProbe(file, code);
  expect(messages.filter((message) => message.ruleId !== rule)).toEqual([]);
  return messages.map((message) => message.message);
}

describe('lint floors in src-main', () => {
  const technique = 'src-main/engine/techniques/probe/probe.ts';
  const engineOverServices = /^engine\/ is on layer 5 of src-main; it imports only its own layer and lower ones, and services\/ is on layer 8 \(mainLayers in eslint\.config\.mjs/;

  it.each([
    ['by its relative spelling', '../../../services/router'],
    ['through the process folder', '../../../../src-main/services/router'],
    ['through a lower folder', '../../../contract/../services/router'],
    ['through the clone\'s own folder', `../../../../../${basename(repoRoot)}/src-main/services/router`],
  ])('refuses a technique importing services/ %s', async (_spelling, specifier) => {
    expect(await floorMessages(technique, importing(specifier))).toEqual([expect.stringMatching(engineOverServices)]);
  });

  it.each([
    ['a re-export', "export * from '../../../../src-main/services/router';\n"],
    ['a dynamic import', "export const later = () => import('../../../../src-main/services/router');\n"],
    ['a type-only import', "export type Later = typeof import('../../../../src-main/services/router');\n"],
    ['require', "export const later = () => require('../../../../src-main/services/router') as unknown;\n"],
  ])('refuses %s of a higher layer too', async (_form, code) => {
    const messages = await lintProbe(technique, code);
    expect(messages.filter((message) => message.ruleId === rule).map((message) => message.message)).toEqual([expect.stringMatching(engineOverServices)]);
  });

  it('lets a technique import its own layer and lower ones, however spelled', async () => {
    const code = [
      "import { WorkbenchError } from '../../../contract/errors';",
      "import { defaultRunLimits } from '../../../../src-main/engine/run-context';",
      "import { scenarioFailed } from '../../../whatif/run-scenarios';",
      'export const probe = [WorkbenchError, defaultRunLimits, scenarioFailed];',
      '',
    ].join('\n');
    expect(await lintProbe(technique, code)).toEqual([]);
  });

  it('keeps the contract to itself and the preload to the contract, by resolved path', async () => {
    expect(await floorMessages('src-main/contract/probe.ts', importing('../../src-main/engine/run-setup'))).toEqual([expect.stringMatching(/^contract\/ imports only itself of src-main, not engine\//)]);
    expect(await floorMessages('src-main/preload/probe.ts', importing('../contract/../services/router'))).toEqual([expect.stringMatching(/^preload\/ imports only contract\/ of src-main, not services\//)]);
    expect(await lintProbe('src-main/preload/probe.ts', importing('../../src-main/contract/transport'))).toEqual([]);
  });

  it('refuses main-process code importing the renderer', async () => {
    expect(await floorMessages('src-main/services/probe.ts', importing('../contract/../../src-renderer/state/store'))).toEqual([
      'Main-process code imports only src-main (never the renderer). This import resolves to src-renderer/state/store.',
    ]);
  });

  it.each([
    ['the run context', 'src-main/engine/tools/probe.ts', '../run-context', /^src-main\/engine\/tools\/ never imports src-main\/engine\/run-context: a tool sees only its ToolContext/],
    ['the run context, spelled with its extension through the process folder', 'src-main/engine/tools/probe.ts', '../../../src-main/engine/run-context.ts', /^src-main\/engine\/tools\/ never imports src-main\/engine\/run-context: /],
    ['a technique', 'src-main/engine/tools/probe.ts', '../techniques/pearl/technique', /^src-main\/engine\/tools\/ never imports src-main\/engine\/techniques: techniques choose tools/],
  ])('refuses a tool importing %s, although both are on the engine layer', async (_what, file, specifier, message) => {
    expect(await floorMessages(file, importing(specifier))).toEqual([expect.stringMatching(message)]);
  });

  it('lets a tool import its ToolContext and the engine beside it', async () => {
    const code = ["import type { ToolContext } from './tool-context';", "import { summarizeSchema } from '../schema-summary';", 'export const probe = (context: ToolContext) => [context, summarizeSchema];', ''].join('\n');
    expect(await lintProbe('src-main/engine/tools/probe.ts', code)).toEqual([]);
  });

  it('asks for a floor for a folder the table does not place', async () => {
    expect(await floorMessages('src-main/unplaced/probe.ts', importing('../contract/errors'))).toEqual([expect.stringMatching(/^src-main\/unplaced\/ has no layer in mainLayers/)]);
  });
});

describe('lint floors in src-renderer', () => {
  const stateOverCells = /^state\/ is on floor 0 of src-renderer; it imports only its own floor and lower ones, and cells\/ is on floor 4 \(rendererFloors in eslint\.config\.mjs/;

  it.each([
    ['by its relative spelling', '../cells/NoteCell'],
    ['through the process folder', '../../src-renderer/cells/NoteCell'],
    ['through the main process', '../../src-main/../src-renderer/cells/NoteCell'],
  ])('refuses state/ importing cells/ %s', async (_spelling, specifier) => {
    expect(await floorMessages('src-renderer/state/probe.ts', importing(specifier))).toEqual([expect.stringMatching(stateOverCells)]);
  });

  it('refuses a feature importing the app shell', async () => {
    expect(await floorMessages('src-renderer/cells/probe.tsx', importing('../app/App'))).toEqual([
      expect.stringMatching(/^cells\/ is on floor 4 of src-renderer; it imports only its own floor and lower ones, and app\/ is on floor 6/),
    ]);
  });

  it.each([
    ['by its relative spelling', '../../src-main/services/router'],
    ['through the contract', '../../src-main/contract/../services/router'],
  ])('refuses the renderer reaching src-main beyond the contract %s', async (_spelling, specifier) => {
    expect(await floorMessages('src-renderer/state/probe.ts', importing(specifier))).toEqual([
      'The renderer talks to the main process only through src-main/contract. This import resolves to src-main/services/router.',
    ]);
  });

  it('lets a cell import the store, the shared hooks and the contract', async () => {
    const code = [
      "import { createWorkbenchStore } from '../state/store';",
      "import { useWorkbench } from '../../src-renderer/ui/store-context';",
      "import { WorkbenchError } from '../../src-main/contract/errors';",
      'export const probe = [createWorkbenchStore, useWorkbench, WorkbenchError];',
      '',
    ].join('\n');
    expect(await lintProbe('src-renderer/cells/probe.tsx', code)).toEqual([]);
  });
});
