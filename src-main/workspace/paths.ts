import { homedir } from 'node:os';
import { join } from 'node:path';

/** The platform's per-user application-data folder for this app, as Electron's `app.getPath('userData')` names it. */
function appDataDir(): string {
  const appName = 'Decision Workbench';
  switch (process.platform) {
    case 'win32':
      return join(process.env['APPDATA'] ?? join(homedir(), 'AppData', 'Roaming'), appName);
    case 'darwin':
      return join(homedir(), 'Library', 'Application Support', appName);
    default:
      return join(process.env['XDG_CONFIG_HOME'] ?? join(homedir(), '.config'), appName);
  }
}

/**
 * Where a workspace lives when none is chosen: the platform's per-user application-data
 * folder, the same one Electron's `app.getPath('userData')` uses for this app.
 */
export function defaultWorkspaceDir(): string {
  return process.env['DWB_WORKSPACE'] || join(appDataDir(), 'workspace');
}

/**
 * The user's own settings outside any workspace: the signing key (`keys/`) and the public keys
 * they trust (`trusted-keys/`). `DWB_CONFIG_DIR` overrides it.
 */
export function defaultConfigDir(): string {
  return process.env['DWB_CONFIG_DIR'] || appDataDir();
}
