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
import { trainDqaPlaybook } from '../benchmark/playbook-training';
import { readQuestionSet } from '../dqa/question-file';
import { requireDumpFiles } from '../dqa/scenario-databases';
import { createOpenAiProvider } from '../llm/openai-provider';
import type { ModelProvider } from '../llm/types';
import type { Environment } from '../workspace/clock';
import { PlaybookStore } from '../engine/techniques/autoplan/playbook-store';
import type { Handlers } from './router';

type PlaybookHandlers = Pick<
  Handlers,
  'playbooks/list' | 'playbooks/get' | 'playbooks/review' | 'playbooks/edit' | 'playbooks/pin' | 'playbooks/unpin' | 'playbooks/import' | 'playbooks/train' | 'playbooks/trainings'
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

  const train = (spec: PlaybookTrainingSpec): PlaybookTraining => {
    const settings = deps.modelSettings();
    if (!settings) throw new WorkbenchError('invalid-request', 'No model is set up: open Model settings and save an endpoint first');
    const set = readQuestionSet(spec.questionsFile);
    requireDumpFiles(set.baseDir, set.questions.map((question) => (spec.db === 'rdb' ? question.rdb : question.gdb)), spec.db);
    const id = deps.environment.newId();
    const directory = join(deps.workspaceDir, 'playbooks', 'trainings', id);
    let training: PlaybookTraining = { id, spec, status: 'running', versions: 0, message: null, directory };
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

  const handlers: PlaybookHandlers = {
    'playbooks/list': () => store.list(),
    'playbooks/get': ({ hash }) => store.detail(hash),
    'playbooks/review': ({ hash, action }) => changed(store.review(hash, action)),
    'playbooks/edit': ({ hash, playbook }) => changed(store.edit(hash, playbook)),
    'playbooks/pin': ({ hash }) => changed(store.pin(hash)),
    'playbooks/unpin': ({ scenario, db }) => changed(store.unpin(scenario, db)),
    'playbooks/import': ({ directory }) => changed(store.importDirectory(directory)),
    'playbooks/train': (spec) => train(spec),
    'playbooks/trainings': () => [...trainings.values()].reverse(),
  };

  return {
    handlers,
    store,
    settle: async () => {
      while (live.size > 0) await Promise.all([...live]);
    },
  };
}
