/**
 * Structured replies with the real small GGUF model (SmolLM2-135M) in the product: Plan*RAG's
 * plan request is decoded under the grammar of its schema, so even this model's plan parses and
 * fits it; `dwb dellma solve --model-file` runs the paper's benchmark on the local model, its
 * decision held to the offered options. NOT RUN without DWB_TEST_MODEL.
 */
import Ajv from 'ajv';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { expect, it } from 'vitest';
import type { RunEvent } from '../../../src-main/contract/run';
import { planReply } from '../../../src-main/engine/techniques/plan-dag/reply-schemas';
import { readTranscript } from '../../../src-main/llm/transcript';
import { describeOrNotRun } from '../../servers/not-run';
import { runDwb } from '../../support/cli';
import { fileHash, sqliteFromDqaDump } from '../../support/fixtures';
import { useSuiteTempDir, useTempDirs } from '../../support/temp';
import { testModel, testModelThreads } from '../../support/test-model';

const model = testModel();
const suiteDir = useSuiteTempDir();
const tempDir = useTempDirs();

describeOrNotRun('structured replies with SmolLM2-135M (--model-file)', model.unavailable, () => {
  it("dwb run --technique plan-dag: the plan request carries its schema, is grammar-constrained, and the plan parses and fits the schema", async () => {
    const database = sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', suiteDir());
    const questionFile = join(suiteDir(), 'question.txt');
    writeFileSync(questionFile, 'Where should SWE place its merchant to maximise profit at baltic_sea?');
    const out = tempDir();
    // Two calls: the plan, and one node call; the run may then stop at the step limit, which is fine here.
    const result = await runDwb(
      ['run', '--connection', `sqlite:${database}`, '--question-file', questionFile, '--technique', 'plan-dag', '--whatif', 'off', '--model-file', model.path!, '--threads', String(testModelThreads), '--context', '4096', '--max-tokens', '384', '--max-steps', '2', '--out', out],
      { timeoutMs: 900_000 },
    );
    expect(result.stderr).toContain('structured output: a grammar holds every JSON reply and tool call (local model)');
    const transcript = readTranscript(readFileSync(join(out, 'transcript.jsonl'), 'utf8'));
    const planExchange = transcript.exchanges[0];
    expect(planExchange?.request.output).toMatchObject({ kind: 'json', name: 'plan_graph' });
    expect(planExchange?.response?.constrained).toBe('grammar');
    const plan: unknown = JSON.parse(planExchange?.response?.content ?? '');
    const schema = (planExchange?.request.output as { schema: Record<string, unknown> }).schema;
    expect(new Ajv({ strict: false }).compile(schema)(plan), planExchange?.response?.content).toBe(true);
    // The schema sent is the planner's own (its node budget from the step limit).
    expect(schema).toEqual((planReply((schema as { properties: { nodes: { maxItems: number } } }).properties.nodes.maxItems) as { schema: unknown }).schema);
    const events = readFileSync(join(out, 'run-log.jsonl'), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { event: RunEvent }).event);
    const responses = events.filter((event): event is Extract<RunEvent, { type: 'model-response' }> => event.type === 'model-response');
    expect(responses[0]?.constrained).toBe('grammar');
  }, 1_000_000);

  it('dwb dellma solve --model-file decides with the local model, its answer held to the options', async () => {
    const out = tempDir();
    const result = await runDwb(
      ['dellma', 'solve', '--problems', 'agriculture', '--limit', '1', '--variant', 'zero-shot', '--model-file', model.path!, '--threads', String(testModelThreads), '--context', '4096', '--out', out],
      { timeoutMs: 900_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^problem 1 \[apple, avocado\]: decision=(apple|avocado) best=avocado (correct|wrong)/);
    expect(lines[1]).toMatch(/^accuracy: [01]\/1 /);
    const record = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')) as { calls: { purpose: string; constrained?: string }[]; model: { settings: { modelPath?: string }; file: unknown } };
    expect(record.calls.map((call) => [call.purpose, call.constrained])).toEqual([['dellma.zero-shot', 'grammar']]);
    expect(record.model.settings.modelPath).toBe(model.path);
    // The GGUF file by its bytes, as dqa solve's result.json names it.
    expect(record.model.file).toEqual({ name: basename(model.path!), sha256: fileHash(model.path!), bytes: statSync(model.path!).size });
  }, 1_000_000);
});
