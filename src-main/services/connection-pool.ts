import type { Connector } from '../connectors/connector';

/** Open connectors by connection id, opened on first use and closed when removed or on exit. */
export class ConnectionPool {
  private readonly open = new Map<string, Promise<Connector>>();

  /** `openById` opens a saved connection (its target with its password from the secret store). */
  constructor(private readonly openById: (connectionId: string) => Promise<Connector>) {}

  get(connectionId: string): Promise<Connector> {
    let connector = this.open.get(connectionId);
    if (!connector) {
      connector = this.openById(connectionId);
      // A failed open is not cached: the next use tries again (the server may be up by then).
      connector.catch(() => this.open.delete(connectionId));
      this.open.set(connectionId, connector);
    }
    return connector;
  }

  async release(connectionId: string): Promise<void> {
    const connector = this.open.get(connectionId);
    this.open.delete(connectionId);
    if (connector) await (await connector.catch(() => null))?.close();
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.open.keys()].map((id) => this.release(id)));
  }
}
