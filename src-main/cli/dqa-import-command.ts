import { parseOptions } from './parse-options';
import { WorkbenchError } from '../contract/errors';
import { importDqaDumps } from '../importers/dqa-import';
import { formatOutcome, formatTotals } from '../importers/import-outcome';
import { parseImportTarget, targetUsage } from '../importers/import-target';
import type { CommandIo } from './command-io';
import { passwordFileOption, uriTemplateWithPassword } from './secret-args';

import { dqaImportUsage } from './usage';

export { dqaImportUsage };

/**
 * `dwb dqa import`: loads every dump the questions reference into TARGET (relational dumps
 * into sqlite:DIR, duckdb:DIR, postgres://… or mysql://…; graph dumps into ladybug:DIR or
 * neo4j://…) and prints, per dump, what it created with counts. Re-running is safe: identical
 * dumps are skipped ("unchanged"), changed ones replace the earlier import ("replaced").
 * `args` are the arguments after `dqa import`.
 */
export async function runDqaImportCommand(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseOptions({
    args,
    allowPositionals: true,
    options: {
      questions: { type: 'string', multiple: true },
      target: { type: 'string' },
      ...passwordFileOption,
    },
  });
  if (positionals.length > 0) throw new WorkbenchError('invalid-request', `unexpected argument "${positionals[0] ?? ''}": ${dqaImportUsage}`);
  const questions = values.questions ?? [];
  if (questions.length === 0) throw new WorkbenchError('invalid-request', `--questions is required: ${dqaImportUsage}`);
  if (values.target === undefined || values.target === '') throw new WorkbenchError('invalid-request', `--target is required (${targetUsage}): ${dqaImportUsage}`);

  const target = parseImportTarget(uriTemplateWithPassword(values.target, values['password-file']));
  io.stderr(`Importing the ${target.accepts} dumps of ${questions.join(', ')} into ${target.description}`);
  const { outcomes, skipped } = await importDqaDumps(questions, target, (outcome) => io.stdout(formatOutcome(outcome)));
  if (skipped.length > 0) {
    io.stderr(`Not imported: ${skipped.length} ${target.accepts === 'relational' ? 'graph' : 'relational'} dump${skipped.length === 1 ? '' : 's'} (a ${target.accepts} target takes ${target.accepts} dumps)`);
  }
  io.stdout(formatTotals(outcomes));
  return 0;
}
