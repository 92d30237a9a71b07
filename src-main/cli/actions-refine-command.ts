import { existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseOptions } from './parse-options';
import { openConnectionUri } from '../connectors/connection-uri';
import type { Connector } from '../connectors/connector';
import { openConnector } from '../connectors/open-connector';
import { WorkbenchError } from '../contract/errors';
import { dqaQuestionText } from '../benchmark/dqa-question-text';
import { questionDatabases } from '../benchmark/question-databases';
import type { BuildingQuestion, DqaScenario, LocatingQuestion } from '../dqa/dataset';
import { readQuestionSet } from '../dqa/question-file';
import { requireDumpFiles, type DbKind } from '../dqa/scenario-databases';
import { readActionLibrary, type ActionLibrary } from '../engine/techniques/pearl/library';
import { maxRefinementAttempts, refineDemonstration, withDemonstration, type RefinementAttempt } from '../engine/techniques/pearl/refine';
import { simulatorFor } from '../simulators/run-simulator';
import type { CommandIo } from './command-io';
import { modelCliOptions, providerFromCliOptions } from './model-options';
import { passwordFileOption, resolveApiKey, resolveDatabasePassword } from './secret-args';
import { actionsUsage } from './usage';
import { readBoundedText } from '../native/bounded-read';

/**
 * `dwb actions refine`: the paper's self-refinement of demonstrations (§3.4) for a library.
 * Each training question is planned and run with the library, and the simulator's best
 * decision for the question (its country and home node or goods) judges the result; a wrong
 * program goes back to the planner as a wrong one, up to four tries. The first program that
 * reaches the best decision is kept in the library as the question's demonstration (replacing
 * an older one of the same question); a question never answered right gives none, and the
 * library's demonstrations are left as they were for it. Every question runs against the
 * library as it was read, so the order of the questions does not change the result.
 */
export async function runActionsRefineCommand(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseOptions({
    args,
    allowPositionals: true,
    options: {
      library: { type: 'string' },
      questions: { type: 'string', multiple: true },
      db: { type: 'string' },
      connection: { type: 'string' },
      ...passwordFileOption,
      ...modelCliOptions,
      out: { type: 'string' },
    },
  });
  if (positionals.length > 0) throw new WorkbenchError('invalid-request', `unexpected argument "${positionals[0] ?? ''}": ${actionsUsage}`);
  const required = (name: 'library' | 'out'): string => {
    const value = values[name];
    if (value === undefined || value === '') throw new WorkbenchError('invalid-request', `--${name} is required: ${actionsUsage}`);
    return value;
  };
  const libraryPath = resolve(required('library'));
  const out = resolve(required('out'));
  if (!values.questions?.length) throw new WorkbenchError('invalid-request', `--questions is required: ${actionsUsage}`);
  if ((values.db === undefined) === (values.connection === undefined)) throw new WorkbenchError('invalid-request', `give the training questions' databases one way: --db rdb|gdb (each question's own dump) or --connection URI (one database for all)`);
  if (values.db !== undefined && values.db !== 'rdb' && values.db !== 'gdb') throw new WorkbenchError('invalid-request', `--db must be rdb or gdb, got "${values.db}"`);
  if (!existsSync(libraryPath)) throw new WorkbenchError('invalid-request', `--library ${libraryPath} does not exist`);
  const library = readActionLibrary(readBoundedText(libraryPath), libraryPath);

  const sets = values.questions.map((path) => readQuestionSet(path));
  const scenarios = [...new Set(sets.map((set) => set.scenario))];
  if (scenarios.length !== 1) throw new WorkbenchError('invalid-request', `the question files mix scenarios (${scenarios.join(', ')}); a library is for one scenario`);
  const scenario = scenarios[0] as DqaScenario;
  if (library.scenario !== 'any' && library.scenario !== scenario) throw new WorkbenchError('invalid-request', `${libraryPath} is a ${library.scenario} library; the questions are ${scenario} questions`);
  const db = values.db as DbKind | undefined;
  if (db !== undefined) for (const set of sets) requireDumpFiles(set.baseDir, set.questions.map((question) => (db === 'rdb' ? question.rdb : question.gdb)), db);
  const questions = sets.flatMap((set) => (set.questions as (LocatingQuestion | BuildingQuestion)[]).map((question) => ({ question, dump: db === undefined ? null : resolve(set.baseDir, db === 'rdb' ? question.rdb : question.gdb) })));

  const model = providerFromCliOptions(values, actionsUsage, resolveApiKey(values));
  const scratch = mkdtempSync(join(tmpdir(), 'dwb-refine-'));
  const shared = values.connection === undefined ? null : await openShared(values.connection, values['password-file']);
  const imported = db === undefined ? null : questionDatabases(scratch, db);
  let refined = library;
  let kept = 0;
  try {
    io.stderr(`refining demonstrations of ${libraryPath} on ${questions.length} ${scenario} question${questions.length === 1 ? '' : 's'} (up to ${maxRefinementAttempts} tries each) with ${model.provider.description}`);
    for (const { question, dump } of questions) {
      const connector = shared ?? (await openConnectionUri((await (imported as NonNullable<typeof imported>).get(dump as string, scenario)).connectionUri));
      try {
        const known = 'home' in question ? { country: question.country, home: question.home } : { country: question.country, goods: question.goods };
        const simulator = await simulatorFor(connector, { rules: 'compat', known });
        if (simulator === null) throw new WorkbenchError('invalid-request', `question ${question.id}: its database is not a DQA ${scenario} database, so the simulator cannot judge a demonstration`);
        const text = dqaQuestionText(question);
        const result = await refineDemonstration({ question: text, rules: question.business_rules, scenario, connector, provider: model.provider, toolMode: model.toolMode, simulator, library });
        io.stdout(outcomeLine(question.id, result.attempts, result.accepted !== null));
        for (const [index, attempt] of result.attempts.entries()) io.stdout(`  try ${index + 1}: ${attemptLine(attempt)}`);
        if (result.accepted) {
          refined = withDemonstration(refined, result.accepted);
          kept += 1;
        }
      } finally {
        if (shared === null) await connector.close();
      }
    }
  } finally {
    await shared?.close();
    await model.local?.unload();
    rmSync(scratch, { recursive: true, force: true });
  }
  writeLibrary(out, refined);
  io.stdout(`library: ${out} (${kept} of ${questions.length} demonstrations kept; ${refined.demonstrations.length} in all)`);
  return 0;
}

async function openShared(uri: string, passwordFile: string | undefined): Promise<Connector> {
  const { target, password } = resolveDatabasePassword(uri, passwordFile);
  return openConnector(target, password);
}

function outcomeLine(id: string, attempts: readonly RefinementAttempt[], accepted: boolean): string {
  const tries = `${attempts.length} tr${attempts.length === 1 ? 'y' : 'ies'}`;
  return accepted ? `${id}: kept: right on try ${attempts.length} (${tries})` : `${id}: dropped: no program reached the best decision in ${tries}; the question gives no demonstration`;
}

function attemptLine(attempt: RefinementAttempt): string {
  const decision = attempt.decision === null ? 'no decision' : `decision "${attempt.decision.replace(/\s+/g, ' ').slice(0, 80)}"`;
  if (attempt.program === null) return `${decision}, no valid program: wrong`;
  return `${decision}: ${attempt.correct ? 'right' : 'wrong'}`;
}

/** Written beside its final name and renamed into place, so a failure never leaves half a library. */
function writeLibrary(out: string, library: ActionLibrary): void {
  const staging = `${out}.${process.pid}.tmp`;
  writeFileSync(staging, `${JSON.stringify(library, null, 2)}\n`);
  renameSync(staging, out);
}
