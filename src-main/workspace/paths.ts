import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where a workspace lives when none is chosen: the platform's per-user application-data
 * folder, the same one Electron's `app.getPath('userData')` uses for this app.
 */
export function defaultWorkspaceDir(): string {
  const override = process.env['DWB_WORKSPACE'];
  if (override) return override;
  const appName = 'Decision Workbench';
  switch (process.platform) {
    case 'win32':
      return join(process.env['APPDATA'] ?? join(homedir(), 'AppData', 'Roaming'), appName, 'workspace');
    case 'darwin':
      return join(homedir(), 'Library', 'Application Support', appName, 'workspace');
    default:
      return join(process.env['XDG_CONFIG_HOME'] ?? join(homedir(), '.config'), appName, 'workspace');
  }
}
