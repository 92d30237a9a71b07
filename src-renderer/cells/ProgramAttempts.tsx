import type { Cell, ProgramErrorView } from '../../src-main/contract';
import { ScrollablePre } from '../ui/ScrollablePre';

/** One of the planner's attempts at a program, as the run wrote it into the cell (engine/techniques/pearl/attempt-cells.ts). */
export interface ProgramAttempt {
  attempt: number;
  maxAttempts: number | null;
  program: string;
  valid: boolean;
  errors: ProgramErrorView[];
}

/** The attempts a program cell gathers, read defensively (a cell written before attempts were gathered has none). */
export function readAttempts(cell: Cell): ProgramAttempt[] {
  const attempts = (cell.data as { attempts?: unknown }).attempts;
  if (!Array.isArray(attempts)) return [];
  return attempts.flatMap((value: unknown): ProgramAttempt[] => {
    const entry = value as Record<string, unknown> | null;
    if (typeof entry !== 'object' || entry === null || typeof entry['attempt'] !== 'number' || typeof entry['program'] !== 'string') return [];
    return [
      {
        attempt: entry['attempt'],
        maxAttempts: typeof entry['maxAttempts'] === 'number' ? entry['maxAttempts'] : null,
        program: entry['program'],
        valid: entry['valid'] === true,
        errors: Array.isArray(entry['errors']) ? (entry['errors'] as unknown[]).filter(isProgramError) : [],
      },
    ];
  });
}

export function isProgramError(value: unknown): value is ProgramErrorView {
  const error = value as Partial<ProgramErrorView> | null;
  return typeof error === 'object' && error !== null && typeof error.line === 'number' && typeof error.column === 'number' && typeof error.message === 'string';
}

/** "2 attempts: 1 refused by the parser, then accepted" — what the closed list says. */
export function attemptsSummary(attempts: readonly ProgramAttempt[]): string {
  const refused = attempts.filter((attempt) => !attempt.valid).length;
  const accepted = attempts.some((attempt) => attempt.valid);
  const count = `${attempts.length} attempt${attempts.length === 1 ? '' : 's'}`;
  if (refused === 0) return `${count}: accepted at once`;
  if (!accepted) return `${count}, ${attempts.length === 1 ? 'refused' : 'all refused'} by the parser`;
  return `${count}: ${refused} refused by the parser, then accepted`;
}

/**
 * The planner's attempts inside the one program cell, closed by default: each refused one with
 * the parser's reasons and its text, the accepted one marked. "Edit" puts an attempt into the
 * cell's editor, to fix it by hand and run it.
 */
export function ProgramAttempts({ attempts, onEdit }: { attempts: readonly ProgramAttempt[]; onEdit(program: string): void }) {
  return (
    <details className="program-attempts" data-testid="program-attempts">
      <summary>{attemptsSummary(attempts)}</summary>
      <ol>
        {attempts.map((attempt) => (
          <li key={attempt.attempt} data-testid="program-attempt" className={attempt.valid ? 'accepted' : 'refused'}>
            <div className="program-attempt-heading">
              <strong>
                Attempt {attempt.attempt}
                {attempt.maxAttempts !== null ? ` of ${attempt.maxAttempts}` : ''}
              </strong>
              <span className={`program-verdict ${attempt.valid ? 'valid' : 'invalid'}`}>{attempt.valid ? 'accepted' : `refused (${attempt.errors.length} error${attempt.errors.length === 1 ? '' : 's'})`}</span>
              <button className="ghost small" data-testid="program-attempt-edit" onClick={() => onEdit(attempt.program)} aria-label={`Edit attempt ${attempt.attempt} in the editor`}>
                Edit
              </button>
            </div>
            {attempt.errors.length > 0 && (
              <ul className="program-errors">
                {attempt.errors.map((error, index) => (
                  <li key={index}>
                    line {error.line}, column {error.column}: {error.message}
                  </li>
                ))}
              </ul>
            )}
            <ScrollablePre className="program-attempt-text" label={`Program of attempt ${attempt.attempt}`}>
              {attempt.program}
            </ScrollablePre>
          </li>
        ))}
      </ol>
    </details>
  );
}
