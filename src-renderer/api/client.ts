import type { WorkbenchClient } from '../../src-main/contract';
import { createIpcClient, type DesktopBridge } from './ipc-client';
import { createWebSocketClient } from './websocket-client';

declare global {
  interface Window {
    /** Present only in the desktop app, set by the preload. */
    dwb?: DesktopBridge;
  }
}

export type TransportState = 'connecting' | 'open' | 'closed';

/**
 * Picks the transport: Electron's preload bridge when present, otherwise the WebSocket of
 * `dwb serve`, authenticated by the token the server printed in the page's address.
 */
export function connectClient(onStateChange: (state: TransportState) => void): WorkbenchClient {
  if (window.dwb) {
    onStateChange('open');
    return createIpcClient(window.dwb);
  }
  const token = new URLSearchParams(window.location.search).get('token') ?? '';
  const url = `${window.location.protocol === 'https:' ? 'wss' : 'ws'}://${window.location.host}/api?token=${encodeURIComponent(token)}`;
  return createWebSocketClient({ url, onStateChange });
}
