import { afterEach, expect } from 'vitest';
import type { RunEvent } from '../../../src-main/contract/run';
import { openSqliteConnector } from '../../../src-main/connectors/sqlite/sqlite-connector';
import type { Connector } from '../../../src-main/connectors/connector';
import { defaultRunLimits, runDecision, type DecisionRunOptions } from '../../../src-main/engine/decision-run';
import type { ReviewDecision, ReviewRequest } from '../../../src-main/engine/review-gate';
import { createOpenAiProvider } from '../../../src-main/llm/openai-provider';
import { tinySqlite } from '../../support/fixtures';
import { messageText, startScriptedOpenAiServer, type ReceivedChatRequest, type ScriptedOpenAiServer, type ScriptedTurn } from '../../support/scripted-openai';
import { useTempDirs } from '../../support/temp';
import { forecastAnswer, isForecast } from './scripted-dellma-model';

/**
 * The store question of the DeLLMa step-through tests, run in process on the tiny SQLite
 * database with the real `openai` SDK against the scripted server, every review point
 * answered by the test.
 */
export const storeQuestion = 'Which region should get the new store?\nOptions: north; south';

/** A model for the store question: the context query, the forecast, then `rank`'s order of each batch. */
export function storeQuestionModel(rank: (request: ReceivedChatRequest) => number[], explanation: string): (request: ReceivedChatRequest) => ScriptedTurn {
  return (request) => {
    const text = messageText(request.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });
    if (text.includes('Write one query that retrieves')) return { label: 'query', content: '```sql\nSELECT name FROM region\n```' };
    if (isForecast(request)) return { label: 'forecast', content: forecastAnswer(request) };
    const order = rank(request);
    return { label: 'rank', content: JSON.stringify({ decision: order[0], rank: order, explanation }) };
  };
}

/** What every in-process DeLLMa run of these tests shares: the technique on `connector`, the scripted model at `baseUrl`. */
export function dellmaRunOptions(connector: Connector, baseUrl: string, question = storeQuestion): Pick<DecisionRunOptions, 'question' | 'rules' | 'technique' | 'connector' | 'connectionDescription' | 'provider' | 'toolMode' | 'limits'> {
  return {
    question,
    rules: '',
    technique: 'dellma',
    connector,
    connectionDescription: 'tiny',
    provider: createOpenAiProvider({ baseUrl, model: 'scripted', requestTimeoutMs: 5000, maxRetries: 0, toolMode: 'tools' }),
    toolMode: 'tools',
    limits: defaultRunLimits,
  };
}

export interface ReviewedRun {
  events: RunEvent[];
  /** Every review the run asked for, in order. */
  reviews: ReviewRequest[];
  decision: string | null;
}

/**
 * Runs the store question with `model`, answering each review with `review`; the run must
 * end answered with the model's script kept. Servers and databases are removed after each test.
 */
export function useStoreQuestionRuns(
  model: (request: ReceivedChatRequest) => ScriptedTurn,
): (review: (request: ReviewRequest) => ReviewDecision, options?: { interactive?: boolean }) => Promise<ReviewedRun> {
  const tempDir = useTempDirs();
  const servers: ScriptedOpenAiServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  return async (review, options = {}) => {
    const server = await startScriptedOpenAiServer(Array.from({ length: 20 }, () => model));
    servers.push(server);
    const connector = openSqliteConnector({ path: tinySqlite(tempDir()) });
    try {
      const reviews: ReviewRequest[] = [];
      const events: RunEvent[] = [];
      const outcome = await runDecision({
        ...dellmaRunOptions(connector, server.baseUrl),
        gate: { interactive: options.interactive ?? true, review: async (request) => (reviews.push(request), review(request)) },
        emit: (event) => events.push(event),
      });
      expect(server.failures).toEqual([]);
      expect(outcome.status).toBe('answered');
      return { events, reviews, decision: outcome.decision };
    } finally {
      await connector.close();
    }
  };
}

/** The inputs of every `tool` cell of a run, in order. */
export const toolInputs = (events: RunEvent[], tool: string): unknown[] => events.flatMap((event) => (event.type === 'tool' && event.tool === tool ? [event.input] : []));
