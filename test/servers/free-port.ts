import { createServer } from 'node:net';

/**
 * Asks the kernel for a free loopback port. Servers that cannot bind port 0 themselves need a
 * number up front; the tiny race between closing this probe and the server binding is
 * acceptable for throwaway test servers.
 */
export function findFreeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => (port > 0 ? resolve(port) : reject(new Error('No free loopback port'))));
    });
  });
}
