/**
 * Which playbook an `autoplan` command follows: `--playbook FILE` (a version file, checked
 * against its hash, or a plain text file), `--playbook VERSION` (a hash or its first digits,
 * from the workspace), or by default the workspace's pinned version for the questions' task
 * type. Other techniques take none.
 */
import { existsSync } from 'node:fs';
import { WorkbenchError } from '../contract/errors';
import { readPlaybookFile } from '../engine/techniques/autoplan/playbook-file';
import { techniqueNamed } from '../engine/techniques/registry';
import { playbookStoreOf } from '../services/playbook-service';
import { readVersionFile, type DbKind, type Scenario } from '../engine/techniques/autoplan/playbook-store';

export interface PlaybookChoice {
  text: string;
  /** The version hash; null for a plain text file. */
  version: string | null;
  /** Where it came from, for the command's stderr. */
  source: string;
}

export function choosePlaybook(input: { technique: string; arg: string | undefined; workspaceDir: string; scenarios: readonly string[]; db: DbKind }): PlaybookChoice | null {
  if (!techniqueNamed(input.technique).usesPlaybook) {
    if (input.arg !== undefined) throw new WorkbenchError('invalid-request', `--playbook goes with a technique that follows one (autoplan), not ${input.technique}`);
    return null;
  }
  const { arg } = input;
  if (arg !== undefined && (existsSync(arg) || !/^[0-9a-f]{6,64}$/.test(arg))) {
    if (arg.toLowerCase().endsWith('.json') && existsSync(arg)) {
      const text = readPlaybookFile(arg);
      const version = readVersionFile(arg);
      return { text, version: version.hash, source: `${arg} (version ${version.hash.slice(0, 12)})` };
    }
    return { text: readPlaybookFile(arg), version: null, source: arg };
  }
  const store = playbookStoreOf(input.workspaceDir);
  const scenarios = [...new Set(input.scenarios)];
  if (arg !== undefined) {
    const { version, scenario, db } = store.find(arg);
    if (db !== input.db || scenarios.some((wanted) => wanted !== scenario)) {
      throw new WorkbenchError('invalid-request', `playbook version ${version.hash.slice(0, 12)} is for ${scenario} × ${db}, but the questions are ${scenarios.join(', ')} × ${input.db}`);
    }
    return { text: version.playbook, version: version.hash, source: `version ${version.hash.slice(0, 12)} from ${input.workspaceDir}` };
  }
  if (scenarios.length !== 1) throw new WorkbenchError('invalid-request', `the pinned playbook is per scenario: give questions of one scenario at a time, or --playbook`);
  const pinned = store.pinned(scenarios[0] as Scenario, input.db);
  return pinned === null ? null : { text: pinned.playbook, version: pinned.hash, source: `pinned version ${pinned.hash.slice(0, 12)} from ${input.workspaceDir}` };
}
