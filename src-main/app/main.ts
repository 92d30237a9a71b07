import { app, BrowserWindow, dialog, ipcMain, safeStorage, session, shell, type IpcMainInvokeEvent } from 'electron';
import { join } from 'node:path';
import { WorkbenchError } from '../contract/errors';
import { isExternalLink } from '../contract/links';
import type { EventMessage, ResponseMessage } from '../contract/transport';
import { openWorkbench, type Workbench } from '../services/workbench';
import { invokeChannel, eventChannel } from '../preload/channels';
import { encryptedSecretStore, memorySecretStore } from '../secrets/secret-store';
import { electronReportPlatform } from './electron-print';
import { launchUtilityModelProcess } from './utility-model-process';

/**
 * The desktop app: one window over the main-process services, with Electron's security
 * checklist applied (context isolation, sandbox, no Node in the renderer, CSP, no navigation
 * or new windows, IPC accepted only from our own page).
 */
const rendererUrl = process.env['ELECTRON_RENDERER_URL'];
const rendererFile = join(__dirname, '../renderer/index.html');

let workbench: Workbench | null = null;

function workspaceDirectory(): string {
  const flag = process.argv.find((argument) => argument.startsWith('--workspace='));
  return flag ? flag.slice('--workspace='.length) : (process.env['DWB_WORKSPACE'] ?? join(app.getPath('userData'), 'workspace'));
}

function isOwnPage(url: string): boolean {
  if (rendererUrl) return url.startsWith(rendererUrl);
  return url.startsWith('file://') && decodeURIComponent(new URL(url).pathname).endsWith('/renderer/index.html');
}

function createWindow(): BrowserWindow {
  const window = new BrowserWindow({
    width: 1400,
    height: 900,
    minWidth: 900,
    minHeight: 600,
    title: 'Decision Workbench',
    show: false,
    webPreferences: {
      preload: join(__dirname, '../preload/preload.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
    },
  });
  window.once('ready-to-show', () => window.show());
  if (rendererUrl) void window.loadURL(rendererUrl);
  else void window.loadFile(rendererFile);
  return window;
}

function lockDownNavigation(): void {
  app.on('web-contents-created', (_event, contents) => {
    // A link in a note opens in the system's browser or mail program, never in a window of the
    // app; only http(s) and mailto, so no other protocol handler is ever reached.
    contents.setWindowOpenHandler(({ url }) => {
      if (isExternalLink(url)) void shell.openExternal(url);
      return { action: 'deny' };
    });
    contents.on('will-navigate', (event, url) => {
      if (!isOwnPage(url)) event.preventDefault();
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
  });
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
}

function serveIpc(services: Workbench): void {
  ipcMain.handle(invokeChannel, async (event: IpcMainInvokeEvent, request: { method: string; params: unknown }): Promise<ResponseMessage> => {
    if (!event.senderFrame || !isOwnPage(event.senderFrame.url)) {
      return { id: 0, ok: false, error: new WorkbenchError('invalid-request', 'Request from an unknown page refused').toJSON() };
    }
    try {
      return { id: 0, ok: true, result: await services.call(request.method, request.params) };
    } catch (error) {
      return { id: 0, ok: false, error: WorkbenchError.from(error).toJSON() };
    }
  });
  services.subscribe((event, payload) => {
    const message: EventMessage = { event, payload };
    for (const window of BrowserWindow.getAllWindows()) window.webContents.send(eventChannel, message);
  });
}

app.enableSandbox();
void app.whenReady().then(() => {
  lockDownNavigation();
  workbench = openWorkbench({
    workspaceDir: workspaceDirectory(),
    platform: {
      transport: 'ipc',
      ...electronReportPlatform(),
      // Without an OS key store, secrets stay in memory (the settings view warns the analyst).
      secretStore: (database) => (safeStorage.isEncryptionAvailable() ? encryptedSecretStore(database, safeStorage) : memorySecretStore()),
      openFileDialog: async ({ title, extensions }) => {
        const choice = await dialog.showOpenDialog({
          title,
          properties: ['openFile'],
          filters: [{ name: title, extensions }, { name: 'All files', extensions: ['*'] }],
        });
        return choice.canceled ? null : (choice.filePaths[0] ?? null);
      },
      modelProcessLauncher: launchUtilityModelProcess,
    },
  });
  serveIpc(workbench);
  createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
});

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});

app.on('will-quit', (event) => {
  if (!workbench) return;
  event.preventDefault();
  const closing = workbench;
  workbench = null;
  void closing.close().finally(() => app.quit());
});
