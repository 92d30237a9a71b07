import { closeSync, openSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseOptions } from './parse-options';
import { WorkbenchError, fileErrorReason } from '../contract/errors';
import { tuneJitForBatch } from './batch-jit';
import { openDumpCache } from '../dqa/dump-cache';
import { parsedDumpDatabases, requireDumpFiles } from '../dqa/dump-databases';
import { readQuestionSet, type QuestionSet } from '../dqa/question-file';
import type { DbKind, ScenarioDatabases } from '../dqa/scenario-databases';
import { accuracyLines, verdictLine, verdictRecord } from '../dqa/solve-report';
import { plainQuestions, solveQuestionSet } from '../dqa/solve-questions';
import type { RuleSet } from '../dqa/simulation';
import type { CommandIo } from './command-io';
import { passwordFileOption } from './secret-options';
import { dqaSolveUsage } from './usage';

export { dqaSolveUsage, dqaUsage } from './usage';

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
    throw new WorkbenchError('not-found', `cannot write --out ${path}: ${fileErrorReason(error)}`);
  }
  return { write: (line) => writeSync(fd, `${line}\n`), close: () => closeSync(fd) };
}

/** `--db rdb`, `--db gdb` or both, comma-separated (`--db rdb,gdb`), in the order given. */
function dbList(value: string): DbKind[] {
  const kinds = value.split(',').map((part) => oneOf(part.trim(), dbKinds, '--db'));
  return [...new Set(kinds)];
}

/**
 * `dwb dqa solve`: decides every question of one or more DQA questions.json files with a
 * simulator, on one or both database kinds, and compares with the annotations. Stdout: one
 * line per question, then the two accuracy lines (when several files or kinds run, each block
 * starts with a `# FILE --db KIND --rules RULES` line); progress goes to stderr. Dump files
 * are parsed in memory, once per run; `--target` reads databases through the connectors
 * instead. Exits 0 when the run completes, whatever the accuracy.
 */
/** The value of `--engine` (or `--engine=…`) among the arguments, if any. */
function engineArgument(args: readonly string[]): string | undefined {
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    if (arg === '--engine') return args[index + 1];
    if (arg.startsWith('--engine=')) return arg.slice('--engine='.length);
  }
  return undefined;
}

export async function runDqaCommand(args: string[], io: CommandIo): Promise<number> {
  const [subcommand, ...rest] = args;
  // Only `import` needs the database writers (and their drivers): load them only for it.
  if (subcommand === 'import') return (await import('./dqa-import-command')).runDqaImportCommand(rest, io);
  // A decision technique (the engine, the model, the connectors) loads only when asked for.
  const engine = engineArgument(rest);
  if (subcommand === 'solve' && engine !== undefined && engine !== 'simulator' && (await import('../engine/techniques/registry')).techniqueIds().includes(engine)) {
    return (await import('./dqa-solve-technique')).runDqaTechniqueCommand(rest, io);
  }
  if (subcommand !== 'solve') {
    throw new WorkbenchError('invalid-request', `${subcommand === undefined ? 'missing subcommand' : `unknown subcommand "${subcommand}"`} (use "dwb dqa solve …" or "dwb dqa import …"): ${dqaSolveUsage}`);
  }
  const { values, positionals } = parseOptions({
    args: rest,
    allowPositionals: true,
    options: {
      questions: { type: 'string', multiple: true },
      engine: { type: 'string' },
      rules: { type: 'string', default: 'compat' },
      db: { type: 'string', default: 'rdb' },
      target: { type: 'string' },
      out: { type: 'string' },
      'no-dump-cache': { type: 'boolean', default: false },
      ...passwordFileOption,
    },
  });
  if (positionals.length > 0) throw new WorkbenchError('invalid-request', `unexpected argument "${positionals[0] ?? ''}": ${dqaSolveUsage}`);
  const questionFiles = values.questions ?? [];
  if (questionFiles.length === 0 || questionFiles.includes('')) throw new WorkbenchError('invalid-request', `--questions is required: ${dqaSolveUsage}`);
  if (values.engine === undefined) throw new WorkbenchError('invalid-request', `--engine is required (only "simulator" for now): ${dqaSolveUsage}`);
  if (!(engines as readonly string[]).includes(values.engine)) {
    throw new WorkbenchError('unsupported', `--engine ${values.engine} is not available: use simulator or a technique (${(await import('../engine/techniques/registry')).techniqueIds().join(', ')})`);
  }
  if (values['password-file'] !== undefined && values.target === undefined) throw new WorkbenchError('invalid-request', `--password-file goes with --target: ${dqaSolveUsage}`);
  tuneJitForBatch();
  const rules = oneOf(values.rules, ruleSets, '--rules');
  const dbs = dbList(values.db);
  const sets = questionFiles.map((file) => readQuestionSet(file));
  if (values.target === undefined) for (const set of sets) for (const db of dbs) requireDumpFiles(set.baseDir, plainQuestions(set, db).map((q) => q.dump), db);
  // The URI parser (and its schemas) loads only to read through a target.
  const target = values.target === undefined ? undefined : (await import('./secret-args')).uriTemplateWithPassword(values.target, values['password-file']);
  // The connectors (and their drivers) load only to read through them.
  const targets = target === undefined ? null : await import('../dqa/scenario-databases');
  const out = openOut(values.out);
  // [ext] Parsed dumps are kept between runs, keyed by their bytes (dqa/dump-cache.ts).
  const cache = target === undefined && !values['no-dump-cache'] ? openDumpCache({ warn: (line) => io.stderr(line) }) : null;
  const several = sets.length * dbs.length > 1;
  try {
    let solved = 0;
    for (const set of sets) {
      for (const db of dbs) {
        const options = { scenario: set.scenario, db, baseDir: set.baseDir, progress: (line: string) => io.stderr(line) };
        const databases = targets !== null && target !== undefined ? targets.targetDatabases(target, options) : parsedDumpDatabases(options, cache);
        if (several) io.stdout(`# ${set.path} --db ${db} --rules ${rules}`);
        await solveOne(set, rules, db, databases, io, out);
        solved += set.questions.length;
      }
    }
    if (cache !== null) {
      cache.close();
      const { hits, writes, rejected, recognised } = cache.counts;
      const parsedAgain = rejected > 0 ? `, ${rejected} unusable ${rejected === 1 ? 'entry' : 'entries'} parsed again` : '';
      io.stderr(`dump cache ${cache.dir}: ${hits} read, ${writes} written${parsedAgain}; ${recognised} dumps recognised without reading them`);
    }
    // Since the process started, so start-up counts (npm run bench:simulators reads this line).
    const cpu = process.cpuUsage();
    io.stderr(`dwb dqa solve: ${solved} questions in ${(performance.now() / 1000).toFixed(3)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(3)} s CPU`);
    return 0;
  } finally {
    out?.close();
    cache?.close();
  }
}

async function solveOne(set: QuestionSet, rules: RuleSet, db: DbKind, databases: ScenarioDatabases, io: CommandIo, out: ReturnType<typeof openOut>): Promise<void> {
  try {
    io.stderr(`solving ${set.questions.length} ${set.scenario} questions from ${set.path} with ${rules} rules on --db ${db}`);
    // Verdicts arrive together once the block is solved: written in one piece, not a write per line.
    const lines: string[] = [];
    const records: string[] = [];
    const run = await solveQuestionSet(set, {
      rules,
      db,
      databases,
      onVerdict: (verdict) => {
        lines.push(verdictLine(verdict));
        if (out !== null) records.push(JSON.stringify(verdictRecord(verdict, rules, db)));
      },
    });
    if (records.length > 0) out?.write(records.join('\n'));
    io.stdout([...lines, ...accuracyLines(run)].join('\n'));
    if (run.errors > 0) io.stderr(`${run.errors} question(s) could not be decided (error=… lines); they count as disagreements`);
    io.stderr(`loaded ${new Set(run.verdicts.map((v) => v.database)).size} databases in ${(run.loadMs / 1000).toFixed(2)} s; solved in ${(run.solveMs / 1000).toFixed(3)} s`);
  } finally {
    await databases.close();
  }
}
