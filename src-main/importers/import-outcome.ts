/**
 * What importing one dump did, as every writer reports it and the CLI prints it. Re-importing
 * is idempotent: a dump whose digest matches the one recorded in the target is skipped
 * ('unchanged'); one that differs replaces what the previous import created ('replaced').
 */
export type ImportStatus = 'created' | 'replaced' | 'unchanged';

/** A table, node label or relationship type the import created, with its row / element count. */
export interface CreatedPart {
  kind: 'table' | 'label' | 'relationship';
  name: string;
  count: number;
}

export interface ImportOutcome {
  dump: string;
  status: ImportStatus;
  /** Where it landed: a file, a database, or a Neo4j filter. */
  location: string;
  parts: CreatedPart[];
}

/** The record an import leaves in its target, so a later import can tell whether it is identical. */
export interface ImportRecord {
  sha256: string;
  parts: CreatedPart[];
}

/** The record's `parts` as stored (JSON text), read back defensively: a damaged record means "replace". */
export function parseParts(text: unknown): CreatedPart[] {
  if (typeof text !== 'string') return [];
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (part): part is CreatedPart =>
        typeof part === 'object' && part !== null && typeof (part as CreatedPart).name === 'string' && typeof (part as CreatedPart).count === 'number',
    );
  } catch {
    return [];
  }
}

/** The status of a new import given the record found in the target (null when none). */
export function statusFor(found: ImportRecord | null, sha256: string): ImportStatus {
  if (found === null) return 'created';
  return found.sha256 === sha256 ? 'unchanged' : 'replaced';
}

function describePart(part: CreatedPart): string {
  const count = part.count.toLocaleString('en-US');
  if (part.kind === 'label') return `:${part.name} ${count}`;
  if (part.kind === 'relationship') return `[:${part.name}] ${count}`;
  return `${part.name} ${count}`;
}

/** `created    dqa_usa1836  goods 52, building 251, …` */
export function formatOutcome(outcome: ImportOutcome): string {
  const parts = outcome.parts.map(describePart).join(', ');
  return `${outcome.status.padEnd(9)}  ${outcome.location}  (${outcome.dump}: ${parts})`;
}

export function formatTotals(outcomes: ImportOutcome[]): string {
  const count = (status: ImportStatus): number => outcomes.filter((outcome) => outcome.status === status).length;
  return `${count('created')} created, ${count('replaced')} replaced, ${count('unchanged')} unchanged (identical dumps are skipped; changed ones replace the earlier import)`;
}
