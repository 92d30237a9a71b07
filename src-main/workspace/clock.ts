import { randomUUID } from 'node:crypto';

/** Time and identity are injected so tests can make notebooks byte-for-byte deterministic. */
export interface Environment {
  now(): string;
  newId(): string;
}

export const systemEnvironment: Environment = {
  now: () => new Date().toISOString(),
  newId: () => randomUUID(),
};
