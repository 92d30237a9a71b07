import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { findChainBreak, type LoggedEvent } from '../../../src-main/audit/hash-chain';
import { readTranscript } from '../../../src-main/llm/transcript';
import { describeOrNotRun } from '../../servers/not-run';
import { runDwb } from '../../support/cli';
import { fileHash, sqliteFromDqaDump } from '../../support/fixtures';
import { useSuiteTempDir, useTempDirs } from '../../support/temp';
import { testModel, testModelThreads } from '../../support/test-model';

const model = testModel();
const suiteDir = useSuiteTempDir();
const tempDir = useTempDirs();

describeOrNotRun('dwb run --model-file (a whole PlanRAG run with SmolLM2-135M in a child process)', model.unavailable, () => {
  let database = '';
  let questionFile = '';
  beforeAll(() => {
    database = sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', suiteDir());
    questionFile = join(suiteDir(), 'question.txt');
    writeFileSync(questionFile, 'Where should SWE place its merchant to maximise profit at baltic_sea?');
  });

  it('every reply parses (0 unusable), the run ends with a decision or the step limit, and the transcript replays to the same notebook', async () => {
    const out = tempDir();
    const before = fileHash(database);
    const common = ['--connection', `sqlite:${database}`, '--question-file', questionFile, '--technique', 'planrag', '--simulator', 'off', '--whatif', 'off'];
    const result = await runDwb(
      [
        'run', ...common, '--model-file', model.path!, '--threads', String(testModelThreads), '--context', '4096', '--max-tokens', '128', '--max-steps', '3', '--out', out,
      ],
      { timeoutMs: 900_000 },
    );
    const lines = result.stderr.trim().split('\n');
    const counts = /^model calls: (\d+), unusable replies: (\d+), prompt tokens: (\d+), completion tokens: (\d+)$/.exec(lines.at(-1) ?? '');
    expect(counts, result.stderr).not.toBeNull();
    const [calls, unusable, promptTokens, completionTokens] = counts!.slice(1).map(Number) as [number, number, number, number];
    expect(unusable, result.stderr).toBe(0);
    // A decision within the limit, or exactly the limit's three calls.
    if (result.code === 0) expect(calls).toBeLessThanOrEqual(3);
    else expect(calls, result.stderr).toBe(3);
    expect(promptTokens).toBeGreaterThan(calls * 200);
    expect(completionTokens).toBeGreaterThan(0);
    if (result.code === 0) expect(result.stdout.trim()).toMatch(/^decision: .+/);
    else expect(lines.at(-2)).toMatch(/^dwb run: step-limit: Stopped after 3 model calls without a decision/);
    expect(fileHash(database)).toBe(before);

    const log = readFileSync(join(out, 'run-log.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as LoggedEvent);
    expect(findChainBreak(log)).toBeNull();
    const start = log[0]?.event;
    expect(start?.type === 'run-start' && start.model.endpoint).toMatch(/^file:\/\/.*\.gguf$/);
    const transcript = readTranscript(readFileSync(join(out, 'transcript.jsonl'), 'utf8'));
    expect(transcript.header.settings).toMatchObject({ modelPath: model.path, threads: testModelThreads, contextSize: 4096, maxTokens: 128 });
    expect(transcript.exchanges).toHaveLength(calls);
    for (const exchange of transcript.exchanges) {
      expect(exchange.response?.constrained).toBe('grammar');
      expect(exchange.response?.toolCalls).toHaveLength(1);
    }

    const replayOut = tempDir();
    const replay = await runDwb(['run', ...common, '--replay', join(out, 'transcript.jsonl'), '--max-steps', '3', '--out', replayOut]);
    expect(replay.code).toBe(result.code);
    const cells = (dir: string): unknown =>
      (JSON.parse(readFileSync(join(dir, 'notebook.json'), 'utf8')) as { cells: { kind: string; author: string; source: string; output: { result?: { rows: unknown } } | null }[] }).cells.map((cell) => ({
        kind: cell.kind,
        author: cell.author,
        source: cell.source,
        rows: cell.output?.result?.rows ?? null,
      }));
    expect(cells(replayOut)).toEqual(cells(out));
  }, 1_000_000);
});
