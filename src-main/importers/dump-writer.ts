import type { DumpFile, DumpSource } from './dump-files';
import { statusFor, type CreatedPart, type ImportOutcome, type ImportRecord } from './import-outcome';

/** One kind of import target (a folder of files, a server): where dumps land and how. */
export interface DumpWriter {
  /** Where `dump` lands, for messages: a file path, a database name, a Neo4j filter. */
  location(dump: DumpFile): string;
  /**
   * The record an earlier import left there, or null when there is none. A place that exists
   * but was not made by an import (no record) is refused rather than overwritten.
   */
  findRecord(dump: DumpFile): Promise<ImportRecord | null>;
  /** Creates what the dump holds (replacing what `previous` lists), then records it. */
  write(dump: DumpSource, previous: ImportRecord | null): Promise<CreatedPart[]>;
  close(): Promise<void>;
}

/** Imports one dump unless the target already holds exactly this dump. */
export async function importDump(writer: DumpWriter, dump: DumpSource): Promise<ImportOutcome> {
  const previous = await writer.findRecord(dump);
  const status = statusFor(previous, dump.sha256);
  const location = writer.location(dump);
  if (status === 'unchanged' && previous !== null) return { dump: dump.name, status, location, parts: previous.parts };
  const parts = await writer.write(dump, previous);
  return { dump: dump.name, status, location, parts };
}
