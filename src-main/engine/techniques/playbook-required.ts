import { WorkbenchError } from '../../contract/errors';
import { techniqueNamed } from './registry';

/**
 * A technique that follows a learned playbook (AutoPlan) is refused without one: run without
 * it, it is plain ReAct, and its results would be tabled under a name they did not earn.
 * `where` says what was looked for ("no --playbook given and none pinned for locating × rdb").
 */
export function requirePlaybook(technique: string, playbook: string | undefined, where: string): void {
  const definition = techniqueNamed(technique);
  if (!definition.usesPlaybook || (playbook !== undefined && playbook.trim() !== '')) return;
  throw new WorkbenchError(
    'invalid-request',
    `${definition.label} follows a learned playbook and has none: ${where}. Train one (dwb playbook train, or Playbooks in the app) and pin it, or give one with --playbook FILE; without a playbook the run would be plain ReAct, not ${definition.label}.`,
  );
}
