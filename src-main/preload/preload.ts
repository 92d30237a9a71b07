import { contextBridge, ipcRenderer } from 'electron';
import type { EventMessage, ResponseMessage } from '../contract/transport';
import { eventChannel, invokeChannel } from './channels';

/**
 * The one object the renderer sees of Electron: a request function and an event
 * subscription, both carrying the contract's messages. No Node or Electron API leaks through.
 */
const bridge = {
  invoke: (method: string, params: unknown): Promise<ResponseMessage> => ipcRenderer.invoke(invokeChannel, { method, params }),
  onEvent: (listener: (message: EventMessage) => void): (() => void) => {
    const handler = (_event: unknown, message: EventMessage): void => listener(message);
    ipcRenderer.on(eventChannel, handler);
    return () => ipcRenderer.removeListener(eventChannel, handler);
  },
};

export type DesktopBridge = typeof bridge;

contextBridge.exposeInMainWorld('dwb', bridge);
