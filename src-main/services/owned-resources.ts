/**
 * What a workbench opened and must close: each service registers its own `close` as it is
 * opened, and `closeAll` closes them last-opened first (runs before the models and connections
 * they use, the workspace database last). A close that fails does not keep the others open:
 * every one is tried, and the failures are thrown together afterwards.
 */
export class OwnedResources {
  private readonly owned: { name: string; close: () => unknown }[] = [];
  private closing: Promise<void> | null = null;

  /** Registers `close` under a name the failure message uses; returns `value` for chaining at the open. */
  own<T>(name: string, value: T, close: (value: T) => unknown): T {
    if (this.closing) throw new Error(`Cannot open ${name}: the workbench is closing`);
    this.owned.push({ name, close: () => close(value) });
    return value;
  }

  /** Closes everything once; a second call waits for the first. */
  closeAll(): Promise<void> {
    this.closing ??= this.closeInReverse();
    return this.closing;
  }

  private async closeInReverse(): Promise<void> {
    const failures: string[] = [];
    for (const { name, close } of this.owned.splice(0).reverse()) {
      try {
        await close();
      } catch (error) {
        failures.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (failures.length) throw new Error(`Closing the workbench failed for ${failures.join('; ')}`);
  }
}
