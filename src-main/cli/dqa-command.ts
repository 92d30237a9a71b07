import { closeSync, openSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { WorkbenchError } from '../contract/errors';
import { readQuestionSet } from '../dqa/question-file';
import { importingDatabases, requireDumpFiles, targetDatabases, type DbKind, type ScenarioDatabases } from '../dqa/scenario-databases';
import { accuracyLines, verdictLine, verdictRecord } from '../dqa/solve-report';
import { plainQuestions, solveQuestionSet } from '../dqa/solve-questions';
import type { RuleSet } from '../dqa/simulation';
import { techniqueIds } from '../engine/techniques/registry';
import type { CommandIo } from './command-io';
import { dqaImportUsage, runDqaImportCommand } from './dqa-import-command';
import { asksForTechnique, dqaTechniqueUsage, runDqaTechniqueCommand } from './dqa-solve-technique';

export const dqaSolveUsage =
  'dwb dqa solve --questions PATH/questions.json --engine simulator [--rules compat|stated] [--db rdb|gdb] [--target URI] [--out results.jsonl]';
export const dqaUsage = `${dqaSolveUsage}\n  ${dqaTechniqueUsage}\n  ${dqaImportUsage}`;

const engines = ['simulator'] as const;
const ruleSets: readonly RuleSet[] = ['compat', 'stated'];
const dbKinds: readonly DbKind[] = ['rdb', 'gdb'];

function oneOf<T extends string>(value: string, allowed: readonly T[], flag: string): T {
  if (!(allowed as readonly string[]).includes(value)) throw new WorkbenchError('invalid-request', `${flag} must be ${allowed.join(' or ')}, got "${value}"`);
  return value as T;
}

/** Opens the results file before any work, so a bad --out path fails at once. */
function openOut(path: string | undefined): { write(line: string): void; close(): void } | null {
  if (path === undefined) return null;
  let fd: number;
  try {
    fd = openSync(resolve(path), 'w');
  } catch (error) {
    throw new WorkbenchError('not-found', `cannot write --out ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  return { write: (line) => writeSync(fd, `${line}\n`), close: () => closeSync(fd) };
}

/**
 * `dwb dqa solve`: decides every question of a DQA questions.json with a simulator and compares
 * with the annotations. Stdout: one line per question, then the two accuracy lines; progress
 * goes to stderr. Exits 0 when the run completes, whatever the accuracy.
 */
export async function runDqaCommand(args: string[], io: CommandIo): Promise<number> {
  const [subcommand, ...rest] = args;
  if (subcommand === 'import') return runDqaImportCommand(rest, io);
  if (subcommand === 'solve' && asksForTechnique(rest)) return runDqaTechniqueCommand(rest, io);
  // parseArgs would keep only the last of several --questions: refuse rather than drop files.
  if (subcommand === 'solve' && rest.filter((arg) => arg === '--questions' || arg.startsWith('--questions=')).length > 1) {
    throw new WorkbenchError('invalid-request', '--engine simulator takes one --questions file (a technique engine takes several)');
  }
  if (subcommand !== 'solve') {
    throw new WorkbenchError('invalid-request', `${subcommand === undefined ? 'missing subcommand' : `unknown subcommand "${subcommand}"`} (use "dwb dqa solve …" or "dwb dqa import …"): ${dqaSolveUsage}`);
  }
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      questions: { type: 'string' },
      engine: { type: 'string' },
      rules: { type: 'string', default: 'compat' },
      db: { type: 'string', default: 'rdb' },
      target: { type: 'string' },
      out: { type: 'string' },
    },
  });
  if (positionals.length > 0) throw new WorkbenchError('invalid-request', `unexpected argument "${positionals[0] ?? ''}": ${dqaSolveUsage}`);
  if (values.questions === undefined || values.questions === '') throw new WorkbenchError('invalid-request', `--questions is required: ${dqaSolveUsage}`);
  if (values.engine === undefined) throw new WorkbenchError('invalid-request', `--engine is required (only "simulator" for now): ${dqaSolveUsage}`);
  if (!(engines as readonly string[]).includes(values.engine)) {
    throw new WorkbenchError('unsupported', `--engine ${values.engine} is not available: use simulator or a technique (${techniqueIds().join(', ')})`);
  }
  const rules = oneOf(values.rules, ruleSets, '--rules');
  const db = oneOf(values.db, dbKinds, '--db');
  const set = readQuestionSet(values.questions);
  if (values.target === undefined) requireDumpFiles(set.baseDir, plainQuestions(set, db).map((q) => q.dump), db);
  const options = { scenario: set.scenario, db, baseDir: set.baseDir, progress: (line: string) => io.stderr(line) };
  const out = openOut(values.out);
  let databases: ScenarioDatabases | null = null;
  try {
    databases = values.target !== undefined ? targetDatabases(values.target, options) : importingDatabases(options);
    io.stderr(`solving ${set.questions.length} ${set.scenario} questions from ${set.path} with ${rules} rules on --db ${db}`);
    const run = await solveQuestionSet(set, {
      rules,
      db,
      databases,
      onVerdict: (verdict) => {
        io.stdout(verdictLine(verdict));
        out?.write(JSON.stringify(verdictRecord(verdict, rules, db)));
      },
    });
    for (const line of accuracyLines(run)) io.stdout(line);
    if (run.errors > 0) io.stderr(`${run.errors} question(s) could not be decided (error=… lines); they count as disagreements`);
    io.stderr(`loaded ${new Set(run.verdicts.map((v) => v.database)).size} databases in ${(run.loadMs / 1000).toFixed(2)} s; solved in ${(run.solveMs / 1000).toFixed(3)} s`);
    return 0;
  } finally {
    out?.close();
    await databases?.close();
  }
}
