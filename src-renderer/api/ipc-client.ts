import { WorkbenchError, type EventMessage, type ResponseMessage, type WorkbenchClient } from '../../src-main/contract';
import { createEventHub } from './event-hub';

/** What the desktop app's preload exposes as `window.dwb` (see src-main/preload/preload.ts). */
export interface DesktopBridge {
  invoke(method: string, params: unknown): Promise<ResponseMessage>;
  onEvent(listener: (message: EventMessage) => void): () => void;
}

export function createIpcClient(bridge: DesktopBridge): WorkbenchClient {
  const hub = createEventHub();
  bridge.onEvent((message) => hub.dispatch(message));
  return {
    invoke: async (method, params) => {
      const response = await bridge.invoke(method, params);
      if (!response.ok) throw WorkbenchError.revive(response.error);
      return response.result as never;
    },
    on: hub.on,
  };
}
