import { describe, expect, it } from 'vitest';
import type { RunOutcome } from '../../../../src-main/engine/run-context';
import { executeSteps } from '../../../../src-main/engine/techniques/pearl/technique';
import { parseProgram, type Program, type ProgramStep } from '../../../../src-main/engine/techniques/pearl/program';
import { seedLibrary, signaturesOf } from '../../../../src-main/engine/techniques/pearl/library';

function programOf(lines: string[]): Program {
  const parsed = parseProgram(['New actions:', '- None', '', ...lines].join('\n'), signaturesOf(seedLibrary()));
  if (!parsed.ok) throw new Error(parsed.errors.map((error) => error.message).join('; '));
  return parsed.program;
}

/** Four independent lookups, then one step over all of them. */
const wide = programOf([
  '1. out1 = LOOKUP(DB, "a", "x") : a',
  '2. out2 = LOOKUP(DB, "b", "x") : b',
  '3. out3 = LOOKUP(DB, "c", "x") : c',
  '4. out4 = LOOKUP(DB, "d", "x") : d',
  '5. out5 = CONCAT(out1, out2, out3, out4) : all',
]);

/** Work whose steps finish only when the test says so, recording how many run at once. */
function heldWork(outputs: Map<string, string>) {
  const release = new Map<string, (ended: RunOutcome | null) => void>();
  const started: string[] = [];
  let running = 0;
  let most = 0;
  const work = (step: ProgramStep): Promise<RunOutcome | null> => {
    started.push(step.id);
    running++;
    most = Math.max(most, running);
    return new Promise((resolve) =>
      release.set(step.id, (ended) => {
        running--;
        if (!ended) outputs.set(step.id, step.id);
        resolve(ended);
      }),
    );
  };
  const finish = async (id: string, ended: RunOutcome | null = null): Promise<void> => {
    await until(() => release.has(id));
    release.get(id)?.(ended);
    release.delete(id);
  };
  return { work, finish, started, most: () => most };
}

async function until(condition: () => boolean): Promise<void> {
  for (let tries = 0; !condition(); tries++) {
    if (tries > 200) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

const stopped: RunOutcome = { status: 'step-limit', decision: null, rationale: null, message: 'out of steps', steps: 9, totalTokens: 0 };

describe('Pearl: executeSteps', () => {
  it('runs independent steps at once up to the limit, and a step only once every output it uses is there', async () => {
    const outputs = new Map<string, string>();
    const held = heldWork(outputs);
    const done = executeSteps(wide, outputs, 2, held.work);
    await until(() => held.started.length === 2);
    expect(held.started).toEqual(['out1', 'out2']);
    await held.finish('out2');
    await until(() => held.started.length === 3);
    expect(held.started).toEqual(['out1', 'out2', 'out3']);
    await held.finish('out1');
    await held.finish('out3');
    await until(() => held.started.length === 4);
    // out5 waits for out4 although a slot is free.
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(held.started).toEqual(['out1', 'out2', 'out3', 'out4']);
    await held.finish('out4');
    await held.finish('out5');
    expect(await done).toBeNull();
    expect(held.most()).toBe(2);
    expect([...outputs.keys()].sort()).toEqual(['out1', 'out2', 'out3', 'out4', 'out5']);
  });

  it('starts nothing new after a step ends the run, lets those in flight settle, and returns that ending', async () => {
    const outputs = new Map<string, string>();
    const held = heldWork(outputs);
    const done = executeSteps(wide, outputs, 2, held.work);
    await held.finish('out1', stopped);
    let settled = false;
    void done.then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(settled).toBe(false); // out2 is still in flight
    await held.finish('out2');
    expect(await done).toBe(stopped);
    expect(held.started).toEqual(['out1', 'out2']);
  });

  it('skips the steps whose outputs a resumed run already has', async () => {
    const outputs = new Map([['out1', 'a'], ['out2', 'b'], ['out3', 'c']]);
    const held = heldWork(outputs);
    const done = executeSteps(wide, outputs, 3, held.work);
    await held.finish('out4');
    await held.finish('out5');
    expect(await done).toBeNull();
    expect(held.started).toEqual(['out4', 'out5']);
  });
});
