import { sharedExtensions, type RunExtension, type TechniqueFidelity } from '../../contract/fidelity';
import type { TechniqueDefinition } from './technique';

/**
 * What a technique's fidelity depends on, from its definition: the shared extensions that
 * concern it (with its paper's defaults), then its own, and its paper's per-call token limits.
 * `runs/techniques` carries this to the renderer; the run executor resolves the run's fidelity from it.
 */
export function techniqueFidelity(definition: TechniqueDefinition): TechniqueFidelity {
  const keeps = definition.paperSettings?.keeps ?? [];
  const shared: RunExtension[] = sharedExtensions
    .filter((extension) => extension.everyTechnique || definition.sharedExtensions?.includes(extension.id))
    .map(({ everyTechnique: _every, ...extension }) => ({ ...extension, paper: keeps.includes(extension.id) }));
  return { extensions: [...shared, ...(definition.extensions ?? [])], paperCallTokens: { ...definition.paperSettings?.callTokens } };
}

/**
 * The problem with switching these extensions for a technique, or null: an id no technique
 * has, or one that does not concern this technique, is refused rather than silently ignored.
 * `registered` are the techniques there are (the registry's), to say which has it.
 */
export function extensionSwitchProblem(definition: TechniqueDefinition, switched: Readonly<Record<string, boolean>>, registered: readonly TechniqueDefinition[]): string | null {
  const own = techniqueFidelity(definition).extensions.map((extension) => extension.id);
  for (const id of Object.keys(switched)) {
    if (own.includes(id)) continue;
    const having = registered.filter((technique) => techniqueFidelity(technique).extensions.some((extension) => extension.id === id));
    if (having.length === 0) return `No extension "${id}": the extensions are ${allExtensionIds(registered).join(', ')}`;
    return `The extension ${id} is for ${having.map((technique) => technique.id).join(', ')}, not ${definition.id}`;
  }
  return null;
}

/** Why a definition's own extensions cannot be registered, or null: each id once, and none a shared extension's. */
export function extensionDeclarationProblem(definition: TechniqueDefinition): string | null {
  const seen = new Set<string>();
  for (const extension of definition.extensions ?? []) {
    if (sharedExtensions.some((shared) => shared.id === extension.id)) return `The extension ${extension.id} of ${definition.id} has the id of a shared extension`;
    if (seen.has(extension.id)) return `The extension ${extension.id} of ${definition.id} is declared twice`;
    seen.add(extension.id);
  }
  for (const id of definition.sharedExtensions ?? []) {
    if (!sharedExtensions.some((shared) => shared.id === id)) return `${definition.id} names a shared extension "${id}" there is none of`;
  }
  return null;
}

function allExtensionIds(registered: readonly TechniqueDefinition[]): string[] {
  const ids = new Set<string>(sharedExtensions.map((extension) => extension.id));
  for (const technique of registered) for (const extension of technique.extensions ?? []) ids.add(extension.id);
  return [...ids];
}
