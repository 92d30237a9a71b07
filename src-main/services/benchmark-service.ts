/**
 * Technique benchmarks in the app: a benchmark runs every technique × database kind it names
 * over a DQA questions file on the configured model, one combination after the other, each
 * into <workspace>/benchmarks/<id>/<technique>-<db>/ exactly as `dwb dqa solve --engine`
 * writes its output directory. Progress is pushed as `benchmark-progress`; stop ends the runs
 * in flight and keeps every decided question, resume runs the rest, and an app stop leaves
 * the benchmark `interrupted`, resumable the same way. AutoPlan follows the pinned playbook
 * of the questions' task type, as read when its combination starts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { EventName, EventPayload } from '../contract/api';
import type { Handlers } from './router';
import { WorkbenchError } from '../contract/errors';
import type { BenchmarkSpec, BenchmarkSummary, QuestionResult } from '../contract/benchmarks';
import { cellSchema } from '../contract/notebook';
import type { ProviderSettings } from '../contract/model';
import { benchmarkQuestions, runBenchmark } from '../benchmark/run-benchmark';
import { writeResultFiles } from '../benchmark/results-files';
import { checkedBenchmarkOptions } from '../benchmark/benchmark-options';
import { writeQuestionResult } from '../benchmark/question-result';
import { requirePlaybook } from '../engine/techniques/playbook-required';
import { collectResults, resultsTable } from '../benchmark/results-table';
import { readQuestionSetFile } from '../dqa/question-file';
import { techniqueNamed } from '../engine/techniques/registry';
import { checkDumpFiles } from '../dqa/scenario-databases';
import { redactUrl } from '../llm/settings';
import type { AppDatabase } from '../workspace/app-database';
import { BenchmarkStore } from '../workspace/benchmark-store';
import type { Environment } from '../workspace/clock';
import type { NotebookStore } from '../workspace/notebook-store';
import type { PlaybookStore } from '../engine/techniques/autoplan/playbook-store';

type BenchmarkHandlers = Pick<Handlers, 'benchmarks/list' | 'benchmarks/start' | 'benchmarks/stop' | 'benchmarks/resume' | 'benchmarks/results' | 'benchmarks/label' | 'benchmarks/open-question'>;

export interface BenchmarkService {
  handlers: BenchmarkHandlers;
  /** Stops every running benchmark (app shutdown); they stay resumable. */
  stopAll(): Promise<void>;
}

function modelDescription(settings: ProviderSettings): string {
  return `${settings.model} at ${redactUrl(settings.baseUrl)}`;
}

/** How the evidence says the category is the analyst's. */
const ANALYST_LABEL = 'labelled by the analyst:';

const savedNotebookSchema = z.object({ title: z.string().optional(), cells: z.array(cellSchema) });

export function createBenchmarkService(deps: {
  database: AppDatabase;
  environment: Environment;
  workspaceDir: string;
  notebooks: NotebookStore;
  modelSettings: () => ProviderSettings | null;
  /** The workspace's playbooks: AutoPlan runs with the pinned version of the questions' task type. */
  playbooks?: PlaybookStore;
  emit: <E extends EventName>(event: E, payload: EventPayload<E>) => void;
}): BenchmarkService {
  const directoryOf = (id: string): string => join(deps.workspaceDir, 'benchmarks', id);
  const store = new BenchmarkStore(deps.database, directoryOf);
  store.markInterrupted(deps.environment.now());
  const live = new Map<string, { controller: AbortController; done: Promise<void> }>();

  const publish = (summary: BenchmarkSummary): BenchmarkSummary => {
    deps.emit('benchmark-progress', summary);
    return summary;
  };

  /**
   * Checks the questions file and its dumps before anything starts (off the main thread: a client
   * names the file); returns the question count per database kind.
   */
  const readQuestions = async (spec: BenchmarkSpec): Promise<number> => {
    for (const technique of spec.techniques) techniqueNamed(technique);
    checkedBenchmarkOptions(spec);
    const set = await readQuestionSetFile(spec.questionsFile);
    for (const db of spec.dbs) await checkDumpFiles(set.baseDir, set.questions.map((question) => (db === 'rdb' ? question.rdb : question.gdb)), db);
    for (const technique of spec.techniques) {
      for (const db of spec.dbs) requirePlaybook(technique, techniqueNamed(technique).usesPlaybook ? deps.playbooks?.pinned(set.scenario, db)?.playbook : '', `none is pinned for ${set.scenario} × ${db}`);
    }
    return set.questions.length;
  };

  const drive = async (id: string, spec: BenchmarkSpec, settings: ProviderSettings, signal: AbortSignal): Promise<void> => {
    const progress = { done: 0, total: 0, correct: 0, correctWithTies: 0, tokens: 0 };
    try {
      const set = await readQuestionSetFile(spec.questionsFile);
      progress.total = set.questions.length * spec.techniques.length * spec.dbs.length;
      for (const technique of spec.techniques) {
        for (const db of spec.dbs) {
          if (signal.aborted) break;
          const pinned = techniqueNamed(technique).usesPlaybook ? (deps.playbooks?.pinned(set.scenario, db) ?? null) : null;
          await runBenchmark({
            ...(pinned ? { playbook: pinned.playbook, playbookVersion: pinned.hash } : {}),
            questions: benchmarkQuestions([set], db),
            technique,
            db,
            outDir: join(directoryOf(id), `${technique}-${db}`),
            model: { settings },
            maxSteps: spec.maxSteps,
            concurrency: spec.concurrency,
            // Each technique's own options (a technique's panel in the Benchmarks view), checked when the benchmark started.
            ...(spec.techniqueOptions?.[technique] ? { techniqueOptions: spec.techniqueOptions[technique] } : {}),
            fidelity: { fidelity: spec.fidelity ?? 'product', ...(spec.temperature !== undefined ? { temperature: spec.temperature } : {}) },
            signal,
            onResult: (result) => {
              progress.done += 1;
              if (result.correct) progress.correct += 1;
              if (result.correctWithTies) progress.correctWithTies += 1;
              progress.tokens += result.totalTokens;
              publish(store.update(id, { progress: { ...progress } }));
            },
          });
        }
      }
      writeResultFiles(directoryOf(id));
      const stopped = signal.aborted;
      publish(store.update(id, { status: stopped ? 'stopped' : 'finished', message: stopped ? 'Stopped; resume to finish the questions left' : null, endedAt: deps.environment.now(), progress: { ...progress } }));
    } catch (error) {
      publish(store.update(id, { status: 'failed', message: error instanceof Error ? error.message : String(error), endedAt: deps.environment.now() }));
    }
  };

  const launch = (summary: BenchmarkSummary, settings: ProviderSettings): void => {
    const controller = new AbortController();
    const done = drive(summary.id, summary.spec, settings, controller.signal).finally(() => live.delete(summary.id));
    live.set(summary.id, { controller, done });
  };

  const requireModel = (): ProviderSettings => {
    const settings = deps.modelSettings();
    if (!settings) throw new WorkbenchError('invalid-request', 'No model is set up: open Model settings and save an endpoint first');
    return settings;
  };

  /** Only a question this benchmark recorded: the id never walks the file system on its own. */
  const recordedQuestion = (summary: BenchmarkSummary, technique: string, db: string, questionId: string): QuestionResult => {
    const recorded = collectResults(summary.directory).find((result) => result.technique === technique && result.db === db && result.id === questionId);
    if (!recorded) throw new WorkbenchError('not-found', `Benchmark ${summary.id} has no decided question ${questionId} for ${technique} on ${db}`);
    return recorded;
  };

  const handlers: BenchmarkHandlers = {
    'benchmarks/list': () => store.list(),
    'benchmarks/start': async (asked) => {
      // The benchmark measures the papers' techniques unless told otherwise; stored with the spec so a resume keeps it.
      const spec: BenchmarkSpec = { ...asked, fidelity: asked.fidelity ?? 'paper' };
      // Stored as the techniques' schemas read them (defaults filled in), so a resume runs the same.
      const techniqueOptions = checkedBenchmarkOptions(spec);
      if (techniqueOptions) spec.techniqueOptions = techniqueOptions;
      const settings = requireModel();
      const perKind = await readQuestions(spec);
      const id = deps.environment.newId();
      store.create({
        id,
        spec,
        model: modelDescription(settings),
        status: 'running',
        progress: { done: 0, total: perKind * spec.techniques.length * spec.dbs.length, correct: 0, correctWithTies: 0, tokens: 0 },
        message: null,
        createdAt: deps.environment.now(),
        endedAt: null,
      });
      const summary = store.get(id);
      launch(summary, settings);
      return publish(summary);
    },
    'benchmarks/stop': async ({ id }) => {
      const running = live.get(id);
      if (!running) throw new WorkbenchError('conflict', `Benchmark ${id} is not running`);
      running.controller.abort();
      await running.done;
      return store.get(id);
    },
    'benchmarks/resume': async ({ id }) => {
      const current = store.get(id);
      if (live.has(id) || current.status === 'running') throw new WorkbenchError('conflict', `Benchmark ${id} is already running`);
      const settings = requireModel();
      // One benchmark, one model: answers of two models in one table would compare nothing.
      const ranOn = current.model.slice(0, current.model.lastIndexOf(' at '));
      if (ranOn !== settings.model) throw new WorkbenchError('conflict', `Benchmark ${id} ran on ${ranOn}; the configured model is ${settings.model}: set ${ranOn} back or start a new benchmark`);
      await readQuestions(current.spec);
      // A second resume may have started it while the file was read.
      if (live.has(id)) throw new WorkbenchError('conflict', `Benchmark ${id} is already running`);
      const summary = store.update(id, { status: 'running', message: null, endedAt: null, model: modelDescription(settings) });
      launch(summary, settings);
      return publish(summary);
    },
    'benchmarks/results': ({ id }) => resultsTable(collectResults(store.get(id).directory)),
    'benchmarks/label': ({ id, technique, db, questionId, category }) => {
      const summary = store.get(id);
      const recorded = recordedQuestion(summary, technique, db, questionId);
      if (recorded.correct || recorded.correctWithTies) throw new WorkbenchError('conflict', `${questionId} was answered right: it has no failure to label`);
      if (live.has(id)) throw new WorkbenchError('conflict', `Benchmark ${id} is running: label its questions once it is stopped or finished`);
      const evidence = recorded.failure.evidence.filter((line) => !line.startsWith(ANALYST_LABEL));
      const labelled = { ...recorded, failure: { category, automatic: false, evidence: [...evidence, `${ANALYST_LABEL} ${category}`] } };
      writeQuestionResult(join(summary.directory, `${technique}-${db}`, questionId), labelled);
      writeResultFiles(summary.directory);
      return labelled;
    },
    'benchmarks/open-question': ({ id, technique, db, questionId }) => {
      const summary = store.get(id);
      recordedQuestion(summary, technique, db, questionId);
      const path = join(summary.directory, `${technique}-${db}`, questionId, 'notebook.json');
      if (!existsSync(path)) throw new WorkbenchError('not-found', `The run of ${questionId} wrote no notebook (it could not start)`);
      const parsed = savedNotebookSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
      if (!parsed.success) throw new WorkbenchError('invalid-request', `${path} is not a notebook this version can read: ${parsed.error.issues[0]?.message ?? 'unknown problem'}`);
      const notebook = deps.notebooks.create(`${questionId} · ${technique} · ${db} (benchmark)`);
      let after: string | null = null;
      for (const cell of parsed.data.cells) {
        const inserted = deps.notebooks.insertCell({
          notebookId: notebook.id,
          afterCellId: after,
          kind: cell.kind,
          author: cell.author,
          source: cell.source,
          connectionId: null,
          settings: cell.settings,
          provenance: cell.provenance,
          data: cell.data,
        });
        if (cell.output) deps.notebooks.saveOutput(inserted.id, cell.output);
        after = inserted.id;
      }
      deps.emit('notebooks-change', {});
      return { notebookId: notebook.id };
    },
  };

  return {
    handlers,
    stopAll: async () => {
      const running = [...live.values()];
      for (const { controller } of running) controller.abort();
      await Promise.all(running.map(({ done }) => done));
    },
  };
}
