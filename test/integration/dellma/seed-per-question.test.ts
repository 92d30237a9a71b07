/**
 * DeLLMa's sampling seed follows the question: two DQA questions (by id) get different draws,
 * the same question run twice gets the same one, a run without an id keeps problem 1 whatever
 * its wording, and a run saved before the seed followed the question resumes with the
 * draw it had (problem number 1). In process, the real `openai` SDK against the scripted server.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { dellmaSamplingSchema, type DellmaSampling } from '../../../src-main/contract/dellma';
import type { RunEvent } from '../../../src-main/contract/run';
import { openSqliteConnector } from '../../../src-main/connectors/sqlite/sqlite-connector';
import { runDecision } from '../../../src-main/engine/decision-run';
import type { ResumeState } from '../../../src-main/engine/resume-state';
import type { ReviewGate } from '../../../src-main/engine/review-gate';
import { problemSeed } from '../../../src-main/engine/techniques/dellma/pipeline';
import { dellmaProblemNumber, dellmaSettings } from '../../../src-main/engine/techniques/dellma/technique';
import { tinySqlite } from '../../support/fixtures';
import { messageText, startScriptedOpenAiServer, type ReceivedChatRequest, type ScriptedOpenAiServer, type ScriptedTurn } from '../../support/scripted-openai';
import { useTempDirs } from '../../support/temp';
import { forecastAnswer, isForecast, rankingPreferring } from './scripted-dellma-model';
import { dellmaRunOptions } from './store-question-run';

const tempDir = useTempDirs();
const servers: ScriptedOpenAiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const model = (request: ReceivedChatRequest): ScriptedTurn => {
  const text = messageText(request.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });
  if (text.includes('Write one query that retrieves')) return { label: 'query', content: '```sql\nSELECT name FROM region\n```' };
  if (isForecast(request)) return { label: 'forecast', content: forecastAnswer(request) };
  const rank = rankingPreferring(request, 'south');
  return { label: 'rank', content: JSON.stringify({ decision: rank[0], rank, explanation: 'South first.' }) };
};

const approve: ReviewGate = { interactive: false, review: async () => ({ action: 'approve' }) };

interface SeededRun {
  status: string;
  sampling: DellmaSampling | null;
  /** The run-log text of the sampling cell. */
  samplingText: string | null;
  checkpoints: ResumeState[];
}

/** One DeLLMa run of the store question on the tiny database; `questionId` as `dwb dqa solve` passes it. */
async function run(options: { questionId?: string; gate?: ReviewGate; resume?: ResumeState; turns?: number } = {}): Promise<SeededRun> {
  const server = await startScriptedOpenAiServer(Array.from({ length: options.turns ?? 20 }, () => model));
  servers.push(server);
  const connector = openSqliteConnector({ path: tinySqlite(tempDir()) });
  try {
    const events: RunEvent[] = [];
    const checkpoints: ResumeState[] = [];
    const outcome = await runDecision({
      ...dellmaRunOptions(connector, server.baseUrl),
      gate: options.gate ?? approve,
      emit: (event) => events.push(event),
      onCheckpoint: (state) => checkpoints.push(JSON.parse(JSON.stringify(state)) as ResumeState),
      ...(options.questionId !== undefined ? { questionId: options.questionId } : {}),
      ...(options.resume ? { resume: options.resume } : {}),
    });
    expect(server.failures).toEqual([]);
    const cell = events.find((event) => event.type === 'tool' && event.tool === 'dellma.sampling') as { input: unknown; output: string } | undefined;
    return { status: outcome.status, sampling: cell ? dellmaSamplingSchema.parse(cell.input) : null, samplingText: cell?.output ?? null, checkpoints };
  } finally {
    await connector.close();
  }
}

const futuresOf = (sampling: DellmaSampling | null): string[] => (sampling?.futures ?? []).map((future) => future.state);

describe("DeLLMa's seed per question", () => {
  it('gives two DQA questions different draws and the same question the same draw twice', async () => {
    const l1 = await run({ questionId: 'L1' });
    const l2 = await run({ questionId: 'L2' });
    const l1Again = await run({ questionId: 'L1' });
    for (const result of [l1, l2, l1Again]) expect(result.status).toBe('answered');

    expect(l1.sampling?.seed).toBe(problemSeed(dellmaSettings.seed, dellmaProblemNumber('L1')));
    expect(l2.sampling?.seed).toBe(problemSeed(dellmaSettings.seed, dellmaProblemNumber('L2')));
    expect(l2.sampling?.seed).not.toBe(l1.sampling?.seed);
    expect(futuresOf(l1.sampling)).toHaveLength(16);
    expect(futuresOf(l2.sampling)).not.toEqual(futuresOf(l1.sampling));

    expect(l1Again.sampling?.seed).toBe(l1.sampling?.seed);
    expect(futuresOf(l1Again.sampling)).toEqual(futuresOf(l1.sampling));
    // The sampling cell shows the seed and where it came from.
    expect(l1.samplingText).toContain(`(seed ${l1.sampling?.seed}, from question L1)`);
  });

  it('without a question id keeps problem 1, whatever the wording', async () => {
    const plain = await run();
    expect(plain.status).toBe('answered');
    expect(plain.sampling?.seed).toBe(problemSeed(dellmaSettings.seed, 1));
    expect(plain.sampling?.seed).not.toBe(problemSeed(dellmaSettings.seed, dellmaProblemNumber('L1')));
    expect(plain.samplingText).toContain(`(seed ${plain.sampling?.seed}, the same for every question without an id)`);
    expect(dellmaProblemNumber()).toBe(1);
  });

  it('resumes a run with the seed it was saved with; one saved before the seed followed the question keeps problem 1', async () => {
    // Stopped while the forecast waits for the analyst: nothing is sampled yet, the checkpoint holds the problem number.
    const stopAtForecast: ReviewGate = { interactive: true, review: async (request) => (request.subject === 'forecast' ? Promise.reject(new Error('the app stopped')) : { action: 'approve' }) };
    const stopped = await run({ questionId: 'B7', gate: stopAtForecast, turns: 2 });
    expect(stopped.status).toBe('failed');
    const saved = stopped.checkpoints.at(-1) as ResumeState;
    expect(saved.technique).toMatchObject({ problem: dellmaProblemNumber('B7') });

    // Resumed with another id given: the recorded problem number wins.
    const resumed = await run({ questionId: 'B8', resume: saved });
    expect(resumed.status).toBe('answered');
    expect(resumed.sampling?.seed).toBe(problemSeed(dellmaSettings.seed, dellmaProblemNumber('B7')));

    // The same checkpoint as an earlier version wrote it, without a problem number: problem 1, as every run then drew.
    const legacy = { ...saved, technique: { ...(saved.technique as Record<string, unknown>) } };
    delete (legacy.technique as Record<string, unknown>)['problem'];
    const resumedLegacy = await run({ questionId: 'B7', resume: legacy });
    expect(resumedLegacy.status).toBe('answered');
    expect(resumedLegacy.sampling?.seed).toBe(problemSeed(dellmaSettings.seed, 1));
  });
});
