import { WorkbenchError } from '../../contract/errors';
import { autoPlan } from './autoplan/technique';
import { dellma } from './dellma/technique';
import { iterRag } from './iterrag/technique';
import { planRag } from './planrag/technique';
import { planDagVariants } from './plan-dag/technique';
import { pearl } from './pearl/technique';
import { planRagNoReplan } from './planrag-norp/technique';
import { singleRag } from './singlerag/technique';
import type { TechniqueDefinition } from './technique';
import { extensionDeclarationProblem } from './technique-extensions';

/**
 * The techniques the workbench runs and compares, one line each (add a technique: its folder
 * here and a line in this list). Runs, `dwb run`, the app's composer and the benchmark read
 * the ids from here.
 */
const techniques: TechniqueDefinition[] = [singleRag, iterRag, planRag, planRagNoReplan, ...planDagVariants, pearl, autoPlan, dellma];

export function registeredTechniques(): readonly TechniqueDefinition[] {
  return techniques;
}

export function techniqueIds(): string[] {
  return techniques.map((technique) => technique.id);
}

/** The technique of that id, or a clear error naming the ones there are. */
export function techniqueNamed(id: string): TechniqueDefinition {
  const technique = techniques.find((candidate) => candidate.id === id);
  if (!technique) throw new WorkbenchError('invalid-request', `No technique "${id}": the techniques are ${techniqueIds().join(', ')}`);
  return technique;
}

/**
 * Adds a technique at run time (tests, plug-ins); its id must be new. Returns a function that
 * removes it again.
 */
export function registerTechnique(technique: TechniqueDefinition): () => void {
  if (!/^[a-z][a-z0-9-]*$/.test(technique.id)) throw new Error(`A technique id is lower-case letters, digits and dashes, got "${technique.id}"`);
  if (techniques.some((candidate) => candidate.id === technique.id)) throw new Error(`A technique "${technique.id}" is already registered`);
  const extensionProblem = extensionDeclarationProblem(technique);
  if (extensionProblem) throw new Error(extensionProblem);
  techniques.push(technique);
  return () => {
    const index = techniques.indexOf(technique);
    if (index >= 0) techniques.splice(index, 1);
  };
}
