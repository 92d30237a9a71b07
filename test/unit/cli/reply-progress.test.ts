import { afterEach, expect, it } from 'vitest';
import { ReplyProgress } from '../../../src-main/cli/reply-progress';

const progresses: ReplyProgress[] = [];
afterEach(() => {
  for (const progress of progresses.splice(0)) progress.stop();
});

/** A progress whose clock the test sets (milliseconds), writing into `lines`. */
function progressWithClock(): { progress: ReplyProgress; lines: string[]; clock: { now: number } } {
  const lines: string[] = [];
  const clock = { now: 0 };
  const progress = new ReplyProgress((line) => lines.push(line), () => clock.now);
  progresses.push(progress);
  return { progress, lines, clock };
}

it("says when a call's first token came and, every 64 tokens, how many at what rate with the reply's tail", () => {
  const { progress, lines, clock } = progressWithClock();
  progress.event({ type: 'model-request', step: 3, tools: ['query'], messageCount: 2 });
  clock.now = 2500;
  progress.token('{"tool": "query"');
  expect(lines).toEqual(['[step 3] model: first token after 2.5 s: {"tool": "query"']);
  for (let piece = 2; piece <= 64; piece += 1) {
    clock.now = 2500 + (piece - 1) * 50;
    progress.token(piece === 64 ? ' LIMIT 1' : 'x');
  }
  expect(lines).toHaveLength(2);
  expect(lines[1]).toMatch(/^\[step 3\] model: 64 tokens, 20\.0 tokens\/s: ….*x LIMIT 1$/);
});

it('pieces outside a model call are not shown, and a new call starts its count again', () => {
  const { progress, lines, clock } = progressWithClock();
  progress.token('stray');
  expect(lines).toEqual([]);
  progress.event({ type: 'model-request', step: 1, tools: [], messageCount: 1 });
  progress.token('a');
  progress.event({ type: 'model-response', step: 1, content: 'a', toolCalls: [], usage: null, latencyMs: 1 });
  progress.token('b');
  clock.now = 1000;
  progress.event({ type: 'model-request', step: 2, tools: [], messageCount: 3 });
  clock.now = 1200;
  progress.token('c');
  expect(lines).toEqual(['[step 1] model: first token after 0.0 s: a', '[step 2] model: first token after 0.2 s: c']);
});

it('a call quiet for 15 s or more says how long, before and after its first token', () => {
  const { progress, lines, clock } = progressWithClock();
  progress.event({ type: 'model-request', step: 1, tools: ['plan'], messageCount: 2 });
  clock.now = 10_000;
  progress.noticeQuiet();
  expect(lines).toEqual([]);
  clock.now = 20_000;
  progress.noticeQuiet();
  clock.now = 21_000;
  progress.token('{');
  clock.now = 40_000;
  progress.noticeQuiet();
  expect(lines).toEqual(['[step 1] model: no token for 20.0 s (still reading the prompt)', '[step 1] model: first token after 21.0 s: {', '[step 1] model: no token for 19.0 s (1 so far)']);
});
