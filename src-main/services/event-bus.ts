import type { EventName, EventPayload } from '../contract/api';

export type EventListener = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

/** Fans events out to every connected client (windows, WebSocket sessions, tests). */
export class EventBus {
  private readonly listeners = new Set<EventListener>();

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const listener of this.listeners) listener(event, payload);
  }
}
