/**
 * Worker process for the what-if sandbox. It owns the writable handle on the scratch copy, so
 * a candidate whose change or objective overruns its time limit is stopped by killing this
 * process (better-sqlite3 cannot interrupt a running statement); see ../connectors/worker-host.ts.
 */
import { WorkbenchError } from '../contract/errors';
import type { WhatIfRequest } from './protocol';
import { openScenarioSession, openSession, type ExperimentSession, type ScenarioSession } from './sandbox-kind';

if (!process.send) throw new Error('usage: a forked what-if worker');
const send = process.send.bind(process);

let session: ExperimentSession | null = null;
let scenarios: ScenarioSession | null = null;

process.on('message', (request: WhatIfRequest & { id: number }) => void answer(request));

async function answer(request: WhatIfRequest & { id: number }): Promise<void> {
  try {
    let value: unknown = null;
    if (request.type === 'open') {
      session?.close();
      session = null;
      session = await openSession(request.kind, request.copyPath, request.change, request.objective);
    } else if (request.type === 'open-scenarios') {
      scenarios?.close();
      scenarios = null;
      scenarios = await openScenarioSession(request.kind, request.copyPath, request.changes, request.objective);
    } else if (request.type === 'evaluate-steps') {
      if (scenarios === null) throw new WorkbenchError('internal', 'what-if worker: evaluate-steps before open-scenarios');
      value = await scenarios.evaluateSteps(request.steps, request.candidate);
    } else {
      if (session === null) throw new WorkbenchError('internal', 'what-if worker: evaluate before open');
      value = await session.evaluate(request.candidate);
    }
    send({ id: request.id, ok: true, value });
  } catch (error) {
    send({ id: request.id, ok: false, error: WorkbenchError.from(error).toJSON() });
  }
}
// The parent going away (crash, kill -9) closes the channel: leave with it.
process.on('disconnect', () => process.exit(0));
