import { wellKnownTypeNames } from './cell-values';
import type { CatalogReader } from './schema';

/**
 * Column type names for result grids. Results carry only type OIDs; common ones are known,
 * others (enums, domains, extension types) are looked up once per connector and remembered.
 */
export class TypeNames {
  private readonly names = new Map<number, string>(wellKnownTypeNames);

  async resolve(oids: number[], read: CatalogReader): Promise<void> {
    const unknown = [...new Set(oids)].filter((oid) => !this.names.has(oid));
    if (unknown.length === 0) return;
    const { rows } = await read('SELECT oid::int, format_type(oid, NULL) FROM pg_type WHERE oid = ANY ($1::oid[])', [unknown]);
    for (const [oid, name] of rows as [number, string][]) this.names.set(oid, name);
  }

  nameOf(oid: number): string {
    return this.names.get(oid) ?? '';
  }
}
