import { dumpsReferencedBy, readDump, type DumpFile } from './dump-files';
import { importDump } from './dump-writer';
import type { ImportOutcome } from './import-outcome';
import type { ImportTarget } from './import-target';

export interface DqaImportResult {
  outcomes: ImportOutcome[];
  /** Dumps of the other kind (graph dumps for a relational target and vice versa), not imported. */
  skipped: DumpFile[];
}

/**
 * Imports every dump the questions files reference that fits the target (relational dumps
 * into relational targets, graph dumps into graph targets), one after another. `progress`
 * hears each outcome as it happens, so a long import shows it is moving.
 */
export async function importDqaDumps(questionsPaths: string[], target: ImportTarget, progress: (outcome: ImportOutcome) => void = () => undefined): Promise<DqaImportResult> {
  const seen = new Set<string>();
  const dumps = questionsPaths.flatMap(dumpsReferencedBy).filter((dump) => !seen.has(dump.path) && seen.add(dump.path));
  const wanted = dumps.filter((dump) => dump.kind === target.accepts);
  const writer = target.open();
  const outcomes: ImportOutcome[] = [];
  try {
    for (const dump of wanted) {
      const outcome = await importDump(writer, readDump(dump));
      outcomes.push(outcome);
      progress(outcome);
    }
  } finally {
    await writer.close();
  }
  return { outcomes, skipped: dumps.filter((dump) => dump.kind !== target.accepts) };
}
