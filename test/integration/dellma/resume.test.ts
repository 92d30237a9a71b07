/**
 * A DeLLMa run interrupted between two ranking batches resumes after its last finished step,
 * in process with the real `openai` SDK against the scripted server: the checkpoint saved
 * before each model call carries the frame, the context, the forecast and the finished
 * batches (and survives the app's JSON store and `resumeStateFor`), so the resumed run asks
 * only for the batch that was under way, shows no step cell twice, and fits both batches.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { dellmaFitSchema, dellmaRankSchema } from '../../../src-main/contract/dellma';
import type { RunEvent } from '../../../src-main/contract/run';
import { openSqliteConnector } from '../../../src-main/connectors/sqlite/sqlite-connector';
import { runDecision, type DecisionRunOptions } from '../../../src-main/engine/decision-run';
import { resumeStateFor, type ResumeState } from '../../../src-main/engine/resume-state';
import type { ReviewGate } from '../../../src-main/engine/review-gate';
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

// 3 options × 16 futures = 48 scenarios: two overlapping batches (32 from 0, the last 24 from 24).
const question = 'Which region should get the new store?\nOptions: east; north; south';

const model = (label: string) => (request: ReceivedChatRequest): ScriptedTurn => {
  const text = messageText(request.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });
  if (text.includes('Write one query that retrieves')) return { label: 'query', content: '```sql\nSELECT name FROM region\n```' };
  if (isForecast(request)) return { label: 'forecast', content: forecastAnswer(request) };
  const rank = rankingPreferring(request, 'south');
  return { label, content: JSON.stringify({ decision: rank[0], rank, explanation: 'South first.' }) };
};

const tools = (events: RunEvent[]): string[] => events.flatMap((event) => (event.type === 'tool' ? [event.tool] : []));

describe('resuming a DeLLMa run', () => {
  it('continues after the last finished batch without asking or showing the earlier steps again', async () => {
    const connector = openSqliteConnector({ path: tinySqlite(tempDir()) });
    try {
      const options = (baseUrl: string, events: RunEvent[]): DecisionRunOptions => ({
        ...dellmaRunOptions(connector, baseUrl, question),
        gate: { interactive: false, review: async () => ({ action: 'approve' }) },
        emit: (event) => events.push(event),
      });
      // The first run: context query, forecast, batch 1; then the server goes away at batch 2.
      const first = await startScriptedOpenAiServer([model('query'), model('forecast'), model('rank 1'), { label: 'gone', fail: { status: 500, message: 'the server went away' } }]);
      servers.push(first);
      const checkpoints: ResumeState[] = [];
      const before: RunEvent[] = [];
      const stopped = await runDecision({ ...options(first.baseUrl, before), onCheckpoint: (state) => checkpoints.push(state) });
      expect(stopped.status).toBe('failed');
      expect(tools(before).filter((tool) => tool.startsWith('dellma.'))).toEqual(['dellma.frame', 'dellma.forecast', 'dellma.sampling', 'dellma.rank']);

      // The app keeps the checkpoint as JSON and reads it back through resumeStateFor.
      const saved = JSON.parse(JSON.stringify(checkpoints.at(-1))) as unknown;
      const resume = resumeStateFor([], { header: { version: 1 } as never, exchanges: [] }, saved);
      expect(resume.technique).toMatchObject({ frame: { actions: ['east', 'north', 'south'] }, batches: [{ window: { index: 0 } }] });

      const second = await startScriptedOpenAiServer([model('rank 2')]);
      servers.push(second);
      const after: RunEvent[] = [];
      const resumed = await runDecision({ ...options(second.baseUrl, after), resume });
      expect(second.failures).toEqual([]);
      expect(second.requests).toHaveLength(1);
      expect(resumed).toMatchObject({ status: 'answered', decision: 'south' });
      expect(after.map((event) => event.type)).toContain('run-resume');
      expect(after.some((event) => event.type === 'query-start')).toBe(false);
      // Only what was not finished is shown: batch 2, the fit and the expected utilities.
      expect(tools(after).filter((tool) => tool.startsWith('dellma.'))).toEqual(['dellma.rank', 'dellma.fit', 'dellma.expected']);
      const inputOf = (tool: string): unknown => (after.find((event) => event.type === 'tool' && event.tool === tool) as { input: unknown } | undefined)?.input;
      const rank = dellmaRankSchema.parse(inputOf('dellma.rank'));
      expect(rank.batch).toBe(2);
      expect(rank.items.map((item) => item.position)).toEqual(Array.from({ length: 24 }, (_, index) => 24 + index));
      // The fit uses both batches: the finished one's 32·31/2 pairs and the new one's 24·23/2.
      const fit = dellmaFitSchema.parse(inputOf('dellma.fit'));
      expect(fit.comparisons).toBe((32 * 31) / 2 + (24 * 23) / 2);
    } finally {
      await connector.close();
    }
  });

  it('stopped while a review waits, asks again for that review only: no model call and no cell repeated', async () => {
    const connector = openSqliteConnector({ path: tinySqlite(tempDir()) });
    try {
      const run = async (turns: ((request: ReceivedChatRequest) => ScriptedTurn)[], gate: ReviewGate, resume?: ResumeState): Promise<{ events: RunEvent[]; checkpoints: ResumeState[]; server: ScriptedOpenAiServer; status: string; reviews: string[] }> => {
        const server = await startScriptedOpenAiServer(turns);
        servers.push(server);
        const events: RunEvent[] = [];
        const checkpoints: ResumeState[] = [];
        const reviews: string[] = [];
        const outcome = await runDecision({
          ...dellmaRunOptions(connector, server.baseUrl),
          gate: { interactive: true, review: async (request, signal) => (reviews.push(request.subject), gate.review(request, signal)) },
          emit: (event) => events.push(event),
          onCheckpoint: (state) => checkpoints.push(JSON.parse(JSON.stringify(state)) as ResumeState),
          ...(resume ? { resume } : {}),
        });
        expect(server.failures).toEqual([]);
        return { events, checkpoints, server, status: outcome.status, reviews };
      };
      const approve: ReviewGate = { interactive: true, review: async () => ({ action: 'approve' }) };
      // The app stops while the forecast waits for the analyst.
      const stopAt = (subject: string): ReviewGate => ({ interactive: true, review: async (request) => (request.subject === subject ? Promise.reject(new Error('the app stopped')) : { action: 'approve' }) });
      const atForecast = await run([model('query'), model('forecast')], stopAt('forecast'));
      expect(atForecast.status).toBe('failed');
      expect(tools(atForecast.events).filter((tool) => tool.startsWith('dellma.'))).toEqual(['dellma.frame', 'dellma.forecast']);

      // Resumed: the forecast review is asked again, the forecast is neither asked nor shown again; the one batch is ranked, then the run stops at its review.
      const atRanking = await run([model('rank')], stopAt('ranking'), atForecast.checkpoints.at(-1));
      expect(atRanking.reviews).toEqual(['forecast', 'ranking']);
      expect(atRanking.server.requests).toHaveLength(1);
      expect(tools(atRanking.events).filter((tool) => tool.startsWith('dellma.'))).toEqual(['dellma.sampling', 'dellma.rank']);

      // Resumed again: only the ranking review, no model call, and the batch's cell is not shown twice.
      const done = await run([], approve, atRanking.checkpoints.at(-1));
      expect(done.status).toBe('answered');
      expect(done.reviews).toEqual(['ranking']);
      expect(done.server.requests).toHaveLength(0);
      expect(tools(done.events).filter((tool) => tool.startsWith('dellma.'))).toEqual(['dellma.fit', 'dellma.expected']);
    } finally {
      await connector.close();
    }
  });
});
