import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDwb } from '../../support/cli';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();

describe('dwb playbook list on a workspace without playbooks', () => {
  it('says there are none and how to get one, leaving stdout empty for scripts', async () => {
    const workspace = tempDir();
    mkdirSync(workspace, { recursive: true });
    const listed = await runDwb(['playbook', 'list', '--workspace', workspace]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toBe('');
    expect(listed.stderr.trim()).toBe(`no playbooks in ${join(workspace, 'playbooks')} yet: train one (dwb playbook train) or import a training's --out folder (dwb playbook import DIR)`);
  });
});
