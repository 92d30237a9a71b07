import { describe, it } from 'vitest';

/**
 * `describe` for tests that need something this machine may lack (a server, Java). When
 * `unavailable` gives a reason, the suite is one skipped test named "NOT RUN: reason" and a
 * warning says so: the run reports it as skipped, never as passed.
 */
export function describeOrNotRun(name: string, unavailable: string | null, body: () => void): void {
  if (unavailable === null) {
    describe(name, body);
    return;
  }
  describe(name, () => {
    it.skip(`NOT RUN: ${unavailable}`, () => undefined);
  });
  console.warn(`[servers] ${name}: not run: ${unavailable}`);
}
