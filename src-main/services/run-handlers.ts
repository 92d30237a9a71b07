import { registeredTechniques } from '../engine/techniques/registry';
import { techniqueFidelity } from '../engine/techniques/technique-extensions';
import { documentContext } from '../engine/techniques/dellma/documents';
import { estimateDellmaRun } from '../engine/techniques/dellma/run-estimate';
import { checkProgram } from '../engine/techniques/pearl/program';
import type { ConnectionStore } from '../workspace/connection-store';
import type { DocumentStore } from '../workspace/document-store';
import type { RunStore } from '../workspace/run-store';
import type { ActionLibraryStore } from './action-libraries';
import type { createDellmaRefitService } from './dellma-refit-service';
import type { HandlersFor } from './router';
import type { RunManager } from './run-manager';

const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;

/**
 * The `runs/*`, `pearl/*` and `dellma/*` requests: decision runs (start, review, stop, resume,
 * history), a Pearl run's program and its action libraries, and a DeLLMa run's estimate and
 * hand-ranked re-fits.
 */
export function runHandlers(dependencies: {
  runs: RunManager;
  runStore: RunStore;
  connections: ConnectionStore;
  documents: DocumentStore;
  actionLibraries: ActionLibraryStore;
  dellmaRefits: ReturnType<typeof createDellmaRefitService>;
}): HandlersFor<'runs/' | 'pearl/' | 'dellma/'> {
  const { runs, runStore, connections, documents, actionLibraries, dellmaRefits } = dependencies;
  return {
    'runs/start': ({ connectionId, ...rest }) => runs.start({ ...rest, connectionId, connectionName: connections.get(connectionId).name }),
    'runs/rerun-node': ({ runId, node, question, pinned }) => runs.rerunNode(runId, { node, question, pinned }),
    'runs/review': ({ runId, key, decision }) => {
      runs.review(runId, decision, key);
      return { ok: true as const };
    },
    'runs/stop': ({ runId }) => {
      runs.stop(runId);
      return { ok: true as const };
    },
    'runs/resume': async ({ runId }) => {
      await runs.resume(runId);
      return { ok: true as const };
    },
    'runs/set-mode': ({ runId, mode }) => {
      runs.setMode(runId, mode);
      return { ok: true as const };
    },
    'runs/list': ({ notebookId }) => runStore.list(notebookId),
    'runs/list-all': ({ limit }) => runStore.listAll(limit),
    'runs/active': () => runs.active(),
    'runs/techniques': () => registeredTechniques().map((technique) => ({ id: technique.id, label: technique.label, summary: technique.summary, fidelity: techniqueFidelity(technique), reviews: [...technique.reviews] })),

    'pearl/check': ({ program, actions }) => checkProgram(program, actions),
    'pearl/run-program': ({ runId, program, mode }) => runs.runProgram(runId, program, mode),
    'pearl/rerun-step': ({ runId, step, mode }) => runs.rerunStep(runId, step, mode),
    'pearl/libraries/list': () => actionLibraries.list(),
    'pearl/libraries/get': ({ id, version }) => actionLibraries.get(id, version),
    'pearl/libraries/save': ({ id, actions, note }) => actionLibraries.save(id, actions, note),
    'pearl/libraries/mine': async ({ connectionId, from }) => {
      const mined = await runs.mineFromPastQuestions(connectionId, from === undefined ? undefined : actionLibraries.library(from));
      return actionLibraries.addMined(mined.library, mined.rounds, `mined from ${plural(mined.questions, 'past question')} and their rules`);
    },
    'pearl/libraries/refine': async ({ connectionId, id }) => {
      const { outcomes, demonstrations } = await runs.refineOnPastQuestions(connectionId, actionLibraries.library(id));
      const kept = demonstrations.length;
      return { library: kept === 0 ? null : actionLibraries.refine(id, demonstrations, `refined ${plural(kept, 'demonstration')} on ${plural(outcomes.length, 'past question')}`), outcomes };
    },
    'pearl/libraries/decide': ({ id, accept }) => actionLibraries.decide(id, accept),
    'pearl/libraries/promote': ({ runId, program }) => actionLibraries.promote(runs.libraryIdOf(runId), program, runId),
    'pearl/libraries/import': ({ path }) => actionLibraries.import(path),

    'dellma/estimate': ({ question, rules, settings, notebookId }) => estimateDellmaRun(question, rules, settings, notebookId ? documentContext(documents.forRun(notebookId)).text.length : 0),
    'dellma/rank-batch': ({ runId, batch, lines }) => dellmaRefits.rankBatch(runId, batch, lines),
    'dellma/withdraw-refit': ({ runId, node }) => dellmaRefits.withdraw(runId, node),
  };
}
