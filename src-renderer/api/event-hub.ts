import type { EventMessage, WorkbenchClient } from '../../src-main/contract';

/** Routes pushed events to the listeners of each event name. */
export function createEventHub(): { on: WorkbenchClient['on']; dispatch(message: EventMessage): void } {
  const listeners = new Map<string, Set<(payload: never) => void>>();
  return {
    on: (event, listener) => {
      const set = listeners.get(event) ?? new Set();
      set.add(listener as (payload: never) => void);
      listeners.set(event, set);
      return () => set.delete(listener as (payload: never) => void);
    },
    dispatch: (message) => {
      for (const listener of listeners.get(message.event) ?? []) listener(message.payload as never);
    },
  };
}
