/**
 * Playbooks in the app: list, read (with the diff from the version it was rewritten from),
 * review, edit, pin and import the workspace's AutoPlan playbook versions
 * (../workspace/playbook-store.ts), and train new ones on a DQA questions file with the
 * configured model, each version arriving as `proposed` while the training goes on.
 */
import { join } from 'node:path';
import type { EventName, EventPayload } from '../contract/api';
import { WorkbenchError } from '../contract/errors';
import type { ProviderSettings } from '../contract/model';
import type { PlaybookTraining, PlaybookTrainingSpec } from '../contract/playbooks';
import { observeQuery, taskTypeLabel, trainDqaPlaybook } from '../benchmark/playbook-training';
import type { Connector } from '../connectors/connector';
import { dialectNotes } from '../engine/dialects';
import { summarizeSchema } from '../engine/schema-summary';
import { batches } from '../engine/techniques/autoplan/playbook';
import { trainPlaybook } from '../engine/techniques/autoplan/training';
import { recogniseScenario } from '../simulators/scenario';
import type { RunStore } from '../workspace/run-store';
import type { SignOffLog } from '../workspace/sign-off-log';
import { readQuestionSetFile } from '../dqa/question-file';
import { checkDumpFiles } from '../dqa/scenario-databases';
import { createOpenAiProvider } from '../llm/openai-provider';
import type { ModelProvider } from '../llm/types';
import type { Environment } from '../workspace/clock';
import { connectionTaskType, PlaybookStore } from '../engine/techniques/autoplan/playbook-store';
import type { Handlers } from './router';

type PlaybookHandlers = Pick<
  Handlers,
  | 'playbooks/list'
  | 'playbooks/get'
  | 'playbooks/review'
  | 'playbooks/edit'
  | 'playbooks/pin'
  | 'playbooks/unpin'
  | 'playbooks/import'
  | 'playbooks/train'
  | 'playbooks/trainings'
  | 'playbooks/train-from-runs'
  | 'playbooks/delete-task'
  | 'playbooks/restore'
>;

export interface PlaybookService {
  handlers: PlaybookHandlers;
  store: PlaybookStore;
  /** Waits for trainings in flight (app shutdown, tests). */
  settle(): Promise<void>;
}

/** Sampling while collecting experience, as the paper does (reflection and update calls stay greedy). */
const TRAINING_TEMPERATURE = 0.7;
const MAX_ACTIONS = 10;

export function playbookStoreOf(workspaceDir: string, now?: () => string): PlaybookStore {
  return new PlaybookStore(join(workspaceDir, 'playbooks'), now);
}

export function createPlaybookService(deps: {
  workspaceDir: string;
  environment: Environment;
  modelSettings: () => ProviderSettings | null;
  /** Tests inject a provider; by default the configured endpoint's. */
  providerFor?: (settings: ProviderSettings) => ModelProvider;
  emit: <E extends EventName>(event: E, payload: EventPayload<E>) => void;
  /** For training from signed-off runs: the workspace's runs, sign-offs and connections. */
  history?: { runs: RunStore; signOffs: SignOffLog; connector(connectionId: string): Promise<Connector>; connectionName(connectionId: string): string };
  /** Whether a connection is in the workspace (not removed); a live connection's playbooks are not deleted. */
  connectionExists?: (connectionId: string) => boolean;
}): PlaybookService {
  const store = playbookStoreOf(deps.workspaceDir, deps.environment.now);
  const trainings = new Map<string, PlaybookTraining>();
  const live = new Set<Promise<void>>();
  const changed = <T>(value: T): T => {
    deps.emit('playbooks-change', {});
    return value;
  };
  const report = (training: PlaybookTraining): void => {
    trainings.set(training.id, training);
    deps.emit('playbooks-change', { training });
  };

  const train = async (spec: PlaybookTrainingSpec): Promise<PlaybookTraining> => {
    const settings = deps.modelSettings();
    if (!settings) throw new WorkbenchError('invalid-request', 'No model is set up: open Model settings and save an endpoint first');
    // A client names the questions file: read and checked off the main thread, with its dumps.
    const set = await readQuestionSetFile(spec.questionsFile);
    await checkDumpFiles(set.baseDir, set.questions.map((question) => (spec.db === 'rdb' ? question.rdb : question.gdb)), spec.db);
    const id = deps.environment.newId();
    const directory = join(deps.workspaceDir, 'playbooks', 'trainings', id);
    let training: PlaybookTraining = { id, source: spec.questionsFile, db: spec.db, batchSize: spec.batchSize, status: 'running', versions: 0, message: null, directory };
    report(training);
    const done = trainDqaPlaybook({
      set,
      db: spec.db,
      batchSize: spec.batchSize,
      ...(spec.iterations !== undefined ? { iterations: spec.iterations } : {}),
      ...(spec.split !== undefined ? { split: spec.split } : {}),
      model: (deps.providerFor ?? createOpenAiProvider)(settings),
      modelName: settings.model,
      temperature: TRAINING_TEMPERATURE,
      maxActions: MAX_ACTIONS,
      reflection: 'sir',
      outDir: directory,
      onVersion: (version) => {
        store.add([version]);
        training = { ...training, versions: training.versions + 1 };
        report(training);
      },
    })
      .then(
        (result) => {
          const held = result.heldOut.length > 0 ? `; ${result.heldOut.length} question(s) held out in ${result.heldOutFile ?? ''}` : '';
          report({ ...training, status: 'finished', message: `${result.versions.length} version(s) from ${result.train.length} training question(s)${held}` });
        },
        (error: unknown) => report({ ...training, status: 'failed', message: WorkbenchError.from(error).message }),
      )
      .finally(() => live.delete(done));
    live.add(done);
    return training;
  };

  /** The answered runs on a connection that the analyst signed off, oldest sign-off first, each once. */
  const signedOffRuns = (history: NonNullable<typeof deps.history>, connectionId: string): { id: string; question: string; rules: string; decision: string }[] => {
    const seen = new Set<string>();
    const found: { id: string; question: string; rules: string; decision: string }[] = [];
    for (const signOff of history.signOffs.list()) {
      if (seen.has(signOff.runId) || history.runs.connectionOf(signOff.runId) !== connectionId) continue;
      seen.add(signOff.runId);
      const run = history.runs.list(signOff.notebookId).find((candidate) => candidate.id === signOff.runId);
      if (!run || run.status !== 'answered' || run.decision === null) continue;
      const start = history.runs.events(run.id).find((entry) => entry.event.type === 'run-start')?.event;
      found.push({ id: run.id, question: run.question, rules: start?.type === 'run-start' ? start.rules : '', decision: run.decision });
    }
    return found;
  };

  const trainFromRuns = async (connectionId: string, batchSize: number): Promise<PlaybookTraining> => {
    const history = deps.history;
    if (!history) throw new WorkbenchError('unsupported', 'Training from runs needs the workspace');
    const settings = deps.modelSettings();
    if (!settings) throw new WorkbenchError('invalid-request', 'No model is set up: open Model settings and save an endpoint first');
    const name = history.connectionName(connectionId);
    const runs = signedOffRuns(history, connectionId);
    if (runs.length === 0) throw new WorkbenchError('invalid-request', `No signed-off run on ${name}: sign off a run's report (Export, with your name) to make it training material`);
    const connector = await history.connector(connectionId);
    const schema = await connector.schema();
    const db = schema.kind === 'relational' ? 'rdb' : 'gdb';
    // DQA data keeps its scenario's task type; the analyst's own data is a task type of its own: the connection.
    const dqa = recogniseScenario(schema);
    const scenario = dqa ?? connectionTaskType(connectionId);
    const id = deps.environment.newId();
    const task = { taskType: dqa ? taskTypeLabel(dqa, db) : `questions on ${name} (${db === 'rdb' ? 'relational' : 'graph'})`, dialectLabel: dialectNotes[connector.engine].label, schemaSummary: summarizeSchema(schema) };
    let training: PlaybookTraining = { id, source: `${runs.length} signed-off run(s) on ${name}`, db, batchSize, status: 'running', versions: 0, message: null, directory: join(deps.workspaceDir, 'playbooks') };
    report(training);
    const byId = new Map(runs.map((run) => [run.id, run]));
    const done = trainPlaybook({
      model: (deps.providerFor ?? createOpenAiProvider)(settings),
      modelName: settings.model,
      taskType: { scenario, db, label: task.taskType },
      batches: batches(runs.map((run) => run.id), batchSize),
      batchSize,
      openJob: async (runId) => {
        const run = byId.get(runId) as (typeof runs)[number];
        return {
          questionId: run.id,
          objective: run.question,
          rules: run.rules,
          task,
          // The signed-off decision is the training-only hint; there are no critical values without a simulator.
          hints: { best: run.decision, criticalValues: [] },
          specifics: { names: [run.decision], values: [] },
          query: (text) => observeQuery(connector, text, db),
          judge: (decision) => decision.trim().toLowerCase() === run.decision.trim().toLowerCase(),
          // The connection is the workspace's own (pooled): it stays open.
          close: async () => undefined,
        };
      },
      temperature: TRAINING_TEMPERATURE,
      maxActions: MAX_ACTIONS,
      reflection: 'sir',
      split: null,
      onVersion: (version) => {
        store.add([version]);
        training = { ...training, versions: training.versions + 1 };
        report(training);
      },
    })
      .then(
        (versions) => report({ ...training, status: 'finished', message: `${versions.length} version(s) from ${runs.length} signed-off run(s)` }),
        (error: unknown) => report({ ...training, status: 'failed', message: WorkbenchError.from(error).message }),
      )
      .finally(() => live.delete(done));
    live.add(done);
    return training;
  };

  const handlers: PlaybookHandlers = {
    'playbooks/list': () => store.list(),
    'playbooks/get': ({ hash }) => store.detail(hash),
    'playbooks/review': ({ hash, action }) => changed(store.review(hash, action)),
    'playbooks/edit': ({ hash, playbook }) => changed(store.edit(hash, playbook)),
    'playbooks/pin': ({ hash }) => changed(store.pin(hash)),
    'playbooks/unpin': ({ scenario, db }) => changed(store.unpin(scenario, db)),
    'playbooks/import': async ({ directory }) => changed(await store.importDirectory(directory)),
    'playbooks/train': (spec) => train(spec),
    'playbooks/trainings': () => [...trainings.values()].reverse(),
    'playbooks/train-from-runs': ({ connectionId, batchSize }) => trainFromRuns(connectionId, batchSize),
    'playbooks/delete-task': ({ scenario, db }) => {
      const connectionId = scenario.startsWith('conn-') ? scenario.slice('conn-'.length) : null;
      if (connectionId !== null && deps.connectionExists?.(connectionId)) {
        throw new WorkbenchError('conflict', `the connection of ${scenario} is still in the workspace: only a removed connection's playbooks are deleted`);
      }
      return changed({ restoreId: store.setAside(scenario, db) });
    },
    'playbooks/restore': ({ restoreId }) => changed(store.putBack(restoreId)),
  };

  return {
    handlers,
    store,
    settle: async () => {
      while (live.size > 0) await Promise.all([...live]);
    },
  };
}
