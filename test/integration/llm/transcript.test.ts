import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorkbenchError } from '../../../src-main/contract/errors';
import { createOpenAiProvider } from '../../../src-main/llm/openai-provider';
import { createReplayProvider } from '../../../src-main/llm/replay-provider';
import { readTranscript, recordingProvider, writeTranscriptLine, type TranscriptLine } from '../../../src-main/llm/transcript';
import type { ChatMessage, ModelProvider, ModelResponse } from '../../../src-main/llm/types';
import { fixedEnvironment } from '../../support/fixtures';
import { useTempDirs } from '../../support/temp';
import { failureOf, runQueryTool, settingsFor, useScriptedServers } from './llm-test-support';

const system: ChatMessage = { role: 'system', content: 'You are a careful analyst.' };
const question: ChatMessage = { role: 'user', content: 'Which region earns more?' };

/** Plays a small plan → query → answer run against any provider, as the engine would. */
async function analysis(provider: ModelProvider): Promise<ModelResponse[]> {
  const messages: ChatMessage[] = [system, question];
  const answers: ModelResponse[] = [];
  for (;;) {
    const answer = await provider.generate({ messages, tools: [runQueryTool], temperature: 0 });
    answers.push(answer);
    messages.push({ role: 'assistant', content: answer.content, toolCalls: answer.toolCalls });
    if (answer.toolCalls.length === 0) return answers;
    for (const call of answer.toolCalls) messages.push({ role: 'tool', toolCallId: call.id, content: `rows for ${call.arguments}` });
  }
}

const runScript = [
  { content: 'Plan: compare revenue by region.', toolCalls: [{ id: 'q1', name: 'run_query', arguments: { sql: 'SELECT * FROM revenue_by_region' } }] },
  { toolCalls: [{ id: 'q2', name: 'run_query', arguments: { sql: 'SELECT count(*) FROM store' } }], expectToolResultContains: 'revenue_by_region' },
  { content: 'South earns more.', usage: { promptTokens: 120, completionTokens: 5 }, expectToolResultContains: 'count(*)' },
];

describe('transcripts: record, read, replay', () => {
  const startServer = useScriptedServers();
  const tempDir = useTempDirs();

  it('records a run to a JSONL file that replays to identical responses without a model', async () => {
    const server = await startServer(runScript);
    const file = join(tempDir(), 'run.jsonl');
    const environment = fixedEnvironment();
    const settings = settingsFor(server, { stream: true, apiKey: 'sk-secret-key' });
    const recorded = recordingProvider(createOpenAiProvider(settings), (line) => appendFileSync(file, writeTranscriptLine(line)), {
      settings,
      now: environment.now,
    });

    const live = await analysis(recorded);
    expect(live.map((answer) => answer.content)).toEqual(['Plan: compare revenue by region.', '', 'South earns more.']);
    server.verify();

    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('sk-secret-key');
    const lines = text.trimEnd().split('\n').map((line) => JSON.parse(line) as TranscriptLine);
    expect(lines).toHaveLength(4);
    expect(lines[0]).toEqual({
      type: 'header',
      format: 'decision-workbench/llm-transcript',
      version: 1,
      createdAt: '2026-01-01T00:00:00.000Z',
      provider: `scripted-model at ${server.baseUrl}`,
      settings: { baseUrl: server.baseUrl, model: 'scripted-model', temperature: 0.2, maxTokens: 2048, requestTimeoutMs: 10_000, maxRetries: 2, stream: true, toolMode: 'tools' },
    });
    expect(lines[1]).toMatchObject({ type: 'exchange', index: 0, startedAt: '2026-01-01T00:00:01.000Z', endedAt: '2026-01-01T00:00:02.000Z' });

    const transcript = readTranscript(text);
    expect(transcript.exchanges.map((exchange) => exchange.request.messages.length)).toEqual([2, 4, 6]);
    const replayed = await analysis(createReplayProvider(transcript, { strict: true }));
    expect(replayed).toEqual(live);
    // The replay needed no server: still only the three live requests.
    expect(server.chatRequests()).toHaveLength(3);
  });

  it('records failed calls, and replays them as the same WorkbenchError', async () => {
    const server = await startServer([{ fail: { status: 400, message: 'context too long' } }, { content: 'fine' }]);
    const lines: TranscriptLine[] = [];
    const recorded = recordingProvider(createOpenAiProvider(settingsFor(server)), (line) => lines.push(line));
    const live = await failureOf(recorded.generate({ messages: [question] }));
    await recorded.generate({ messages: [question] });
    expect(lines[0]).toMatchObject({ type: 'header', settings: null });
    expect(lines[1]).toMatchObject({ index: 0, error: { code: 'invalid-request', message: live.error.message } });
    expect(lines[1]).not.toHaveProperty('response');

    const replay = createReplayProvider(lines.map(writeTranscriptLine).join(''));
    const replayed = await failureOf(replay.generate({ messages: [question] }));
    expect(replayed.error.toJSON()).toEqual(live.error.toJSON());
    expect((await replay.generate({ messages: [question] })).content).toBe('fine');
  });

  it('replays calls made at the same time in another order than recorded, by their messages', async () => {
    const lines: TranscriptLine[] = [];
    const inner: ModelProvider = {
      description: 'stub',
      generate: async (request) => ({ content: `answer to ${request.messages[0]?.content ?? ''}`, toolCalls: [], finishReason: 'stop', usage: null, latencyMs: 1, model: 'stub' }),
    };
    const recorded = recordingProvider(inner, (line) => lines.push(line));
    const ask = (content: string) => ({ messages: [{ role: 'user' as const, content }] });
    await Promise.all([recorded.generate(ask('Q1.1')), recorded.generate(ask('Q1.2'))]);
    await recorded.generate(ask('Q1.1'));
    const replay = createReplayProvider(lines.map(writeTranscriptLine).join(''), { strict: true });
    expect((await replay.generate(ask('Q1.2'))).content).toBe('answer to Q1.2');
    expect((await replay.generate(ask('Q1.1'))).content).toBe('answer to Q1.1');
    expect((await replay.generate(ask('Q1.1'))).content).toBe('answer to Q1.1');
    // A request no unused exchange recorded still diverges, naming the next exchange in order.
    const other = createReplayProvider(lines.map(writeTranscriptLine).join(''), { strict: true });
    expect((await failureOf(other.generate(ask('Q9.9')))).error.message).toMatch(/^Replay diverged at exchange 0: message 0 differs in content/);
  });

  it('copies the request when the call starts, so later edits of the history do not leak in', async () => {
    const lines: TranscriptLine[] = [];
    const inner: ModelProvider = {
      description: 'stub',
      generate: async () => ({ content: 'ok', toolCalls: [], finishReason: 'stop', usage: null, latencyMs: 1, model: 'stub' }),
    };
    const messages: ChatMessage[] = [question];
    await recordingProvider(inner, (line) => lines.push(line)).generate({ messages });
    messages.push({ role: 'assistant', content: 'ok' });
    expect(lines[1]).toMatchObject({ request: { messages: [question] } });
  });

  it('replays onToken once with the whole content, and says when the transcript is exhausted', async () => {
    const server = await startServer([{ content: 'only answer' }]);
    const lines: TranscriptLine[] = [];
    await recordingProvider(createOpenAiProvider(settingsFor(server)), (line) => lines.push(line)).generate({ messages: [question] });
    const replay = createReplayProvider(readTranscript(lines.map(writeTranscriptLine).join('')));
    expect(replay.description).toBe(`replay of scripted-model at ${server.baseUrl}`);
    const tokens: string[] = [];
    await replay.generate({ messages: [question] }, { onToken: (text) => tokens.push(text) });
    expect(tokens).toEqual(['only answer']);
    const { error } = await failureOf(replay.generate({ messages: [question] }));
    expect(error.code).toBe('invalid-request');
    expect(error.message).toBe('The transcript is exhausted: it recorded 1 model call, and call 2 was asked for.');
  });

  it('in strict mode names the first differing message when the run diverges', async () => {
    const server = await startServer(runScript);
    const lines: TranscriptLine[] = [];
    await analysis(recordingProvider(createOpenAiProvider(settingsFor(server)), (line) => lines.push(line)));
    const text = lines.map(writeTranscriptLine).join('');

    const strict = createReplayProvider(text, { strict: true });
    await strict.generate({ messages: [system, question], tools: [runQueryTool] });
    const changed: ChatMessage[] = [
      system,
      question,
      { role: 'assistant', content: 'Plan: compare revenue by region.', toolCalls: [{ id: 'q1', name: 'run_query', arguments: '{"sql":"SELECT * FROM revenue_by_region"}' }] },
      { role: 'tool', toolCallId: 'q1', content: 'rows for something else' },
    ];
    const { error } = await failureOf(strict.generate({ messages: changed, tools: [runQueryTool] }));
    expect(error.code).toBe('invalid-request');
    expect(error.message).toBe(
      'Replay diverged at exchange 1: message 3 differs in content from character 9 (recorded "rows for {\\"sql\\":\\"SELECT * FROM revenue_by_region\\"…", requested "rows for something else").',
    );

    const shorter = createReplayProvider(text, { strict: true });
    const missing = await failureOf(shorter.generate({ messages: [system] }));
    expect(missing.error.message).toBe('Replay diverged at exchange 0: message 1 is missing (the request has 1 messages, the recording 2).');

    const lenient = createReplayProvider(text);
    expect((await lenient.generate({ messages: [question] })).content).toBe('Plan: compare revenue by region.');
  });
});

describe('readTranscript reports malformed files by line', () => {
  const header = JSON.stringify({ type: 'header', format: 'decision-workbench/llm-transcript', version: 1, createdAt: '2026-01-01T00:00:00.000Z', provider: 'p', settings: null });
  const exchange = (index: number, extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      type: 'exchange',
      index,
      startedAt: '2026-01-01T00:00:01.000Z',
      endedAt: '2026-01-01T00:00:02.000Z',
      request: { messages: [{ role: 'user', content: 'q' }] },
      response: { content: 'a', toolCalls: [], finishReason: 'stop', usage: null, latencyMs: 3, model: 'm' },
      ...extra,
    });
  const messageOf = (text: string) => {
    try {
      readTranscript(text);
    } catch (error) {
      if (error instanceof WorkbenchError) return `${error.code}: ${error.message}`;
      throw error;
    }
    return 'no error';
  };

  it('accepts a well-formed file with blank lines and CRLF endings', () => {
    const transcript = readTranscript(`${header}\r\n${exchange(0)}\r\n\r\n${exchange(1)}\r\n`);
    expect(transcript.exchanges.map((line) => line.index)).toEqual([0, 1]);
  });

  it('accepts exchanges written out of order (concurrent calls) and sorts them', () => {
    expect(readTranscript([header, exchange(1), exchange(0)].join('\n')).exchanges.map((line) => line.index)).toEqual([0, 1]);
  });

  it.each([
    ['an empty file', '', 'invalid-request: Transcript line 1: the file is empty; the first line must be the header'],
    ['invalid JSON', `${header}\n${exchange(0)}\n{"type": "exchange", "index": 1,`, /^invalid-request: Transcript line 3: not valid JSON \(/],
    ['no header first', exchange(0), 'invalid-request: Transcript line 1: the first line must be the header ({"type":"header",…}), found type "exchange"'],
    ['another format', JSON.stringify({ type: 'header', format: 'other', version: 1 }), 'invalid-request: Transcript line 1: not a Decision Workbench LLM transcript (format "other", expected "decision-workbench/llm-transcript")'],
    ['a newer version', header.replace('"version":1', '"version":2'), 'unsupported: Transcript line 1: format version 2 is newer than this workbench reads (1)'],
    ['a second header', `${header}\n${exchange(0)}\n${header}`, 'invalid-request: Transcript line 3: a second header; a transcript has exactly one, on its first line'],
    ['an unknown line type', `${header}\n{"type":"note"}`, 'invalid-request: Transcript line 2: "type" must be "exchange", found type "note"'],
    ['a wrong field', `${header}\n${exchange(0, { request: { messages: [{ role: 'robot', content: 'q' }] } })}`, /^invalid-request: Transcript line 2: request\.messages\.0\.role: /],
    ['a missing field', `${header}\n${exchange(0).replace('"finishReason":"stop",', '')}`, /^invalid-request: Transcript line 2: response\.finishReason: /],
    ['both response and error', `${header}\n${exchange(0, { error: { code: 'timeout', message: 'slow' } })}`, 'invalid-request: Transcript line 2: an exchange has exactly one of "response" and "error"'],
    ['an unknown error code', `${header}\n${exchange(0, { response: undefined, error: { code: 'melted', message: 'x' } })}`, /^invalid-request: Transcript line 2: error\.code: /],
    ['a duplicate index', `${header}\n${exchange(0)}\n\n${exchange(0)}`, 'invalid-request: Transcript line 4: exchange index 0 was already used on line 2'],
    ['a gap in the indexes', `${header}\n${exchange(0)}\n${exchange(2)}`, 'invalid-request: Transcript line 3: exchange index 2, but no exchange 1 comes before it (indexes run 0, 1, 2, … without gaps)'],
    ['an API key in the header', header.replace('"settings":null', '"settings":{"apiKey":"sk"}'), 'invalid-request: Transcript line 1: settings: a transcript must never hold an API key'],
  ])('rejects %s', (_name, text, expected) => {
    if (typeof expected === 'string') expect(messageOf(text)).toBe(expected);
    else expect(messageOf(text)).toMatch(expected);
  });
});
