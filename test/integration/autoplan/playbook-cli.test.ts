import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { QuestionResult } from '../../../src-main/benchmark/question-result';
import type { PlaybookVersion } from '../../../src-main/engine/techniques/autoplan/playbook';
import { autoplanScript } from '../../support/autoplan-script';
import { runDwb, type CliResult } from '../../support/cli';
import { devQuestions, simulate, techniqueModel, writeQuestionFile, type QuestionScript } from '../../support/dqa-technique-model';
import { messageText, type ReceivedChatRequest, type ScriptedTurn } from '../../support/scripted-openai/script';
import { useTempDirs } from '../../support/temp';
import { useScriptedOpenAiServers } from '../../support/lifecycle';

const tempDir = useTempDirs();
const serve = useScriptedOpenAiServers();
const dwb = (args: string[]): Promise<CliResult> => runDwb(args, { timeoutMs: 240_000, maxBuffer: 32 * 1024 * 1024 });

const ids = ['L1', 'L2', 'L3', 'L4', 'L5', 'L6', 'L7', 'L8', 'L9', 'L10', 'L11'];
const questions = devQuestions('locating', ids);
const PLAYBOOK_1 = '1. Query the home node and the nodes that flow into it.\n2. Finish with the node that adds most to the home node.';
const PLAYBOOK_2 = '1. Query the upstream nodes of the home node with their ingoing value and total power.\n2. Compare them by the rules.\n3. Finish with the best node.';

describe('dwb playbook train, then dwb dqa solve --engine autoplan --playbook on the held-out questions', () => {
  it('trains on a seeded split, writes versions that a re-run reproduces, and answers held-out questions with the playbook in the prompt and no training hint in any inference request', async () => {
    const dir = tempDir();
    const questionsFile = writeQuestionFile(join(dir, 'locating.json'), 'locating', questions);
    const answers = new Map(questions.map((question) => [question.id, simulate('locating', question).best]));
    const train = async (out: string): Promise<{ result: CliResult; requests: ReceivedChatRequest[] }> => {
      const server = await serve(autoplanScript({ questions, answers, playbooks: [PLAYBOOK_1, PLAYBOOK_2] }));
      const result = await dwb(['playbook', 'train', '--questions', questionsFile, '--db', 'rdb', '--batch', '4', '--split', '3:0.73', '--base-url', server.baseUrl, '--model', 'scripted', '--out', out]);
      expect(server.failures).toEqual([]);
      return { result, requests: server.chatRequests() };
    };
    const trainDir = join(dir, 'playbooks');
    const { result: trained, requests: trainingRequests } = await train(trainDir);
    expect(trained.stderr).not.toMatch(/dwb playbook: /);
    expect(trained.code).toBe(0);
    const split = JSON.parse(readFileSync(join(trainDir, 'split.json'), 'utf8')) as { train: string[]; heldOut: string[] };
    expect(split.train).toHaveLength(8);
    expect(split.heldOut).toHaveLength(3);
    expect([...split.train, ...split.heldOut].sort()).toEqual([...ids].sort());
    const v2 = JSON.parse(readFileSync(join(trainDir, 'v002.json'), 'utf8')) as PlaybookVersion;
    expect(v2.playbook).toBe(PLAYBOOK_2);
    expect([...v2.batch.questionIds, ...(JSON.parse(readFileSync(join(trainDir, 'v001.json'), 'utf8')) as PlaybookVersion).batch.questionIds]).toEqual(expect.arrayContaining(split.train));
    expect(trained.stdout.split('\n').filter((line) => /^v00\d [0-9a-f]{64} /.test(line))).toHaveLength(2);
    expect(readFileSync(join(trainDir, 'v002.diff'), 'utf8')).toContain('+3. Finish with the best node.');
    // No held-out question was trained on.
    for (const request of trainingRequests) for (const id of split.heldOut) expect(request.chat.messages.map(messageText).join('\n')).not.toMatch(new RegExp(`Summary of ${id}\\b`));

    const again = await train(join(dir, 'again'));
    expect(again.result.stdout).toBe(trained.stdout);
    expect(readFileSync(join(dir, 'again', 'v002.json'), 'utf8')).toBe(readFileSync(join(trainDir, 'v002.json'), 'utf8'));

    // Inference on the held-out questions with the trained playbook.
    const held = questions.filter((question) => split.heldOut.includes(question.id));
    const scripts = new Map<string, QuestionScript>(held.map((question) => [question.id, { queries: [`SELECT '${question.id}' AS question, count(*) AS nodes FROM trade_node`], answer: answers.get(question.id) ?? '' }]));
    const answerOf = techniqueModel(held, scripts)[0] as (request: ReceivedChatRequest) => ScriptedTurn;
    const withThoughts = (request: ReceivedChatRequest): ScriptedTurn => {
      const stage = request.chat.messages.filter((message) => message.role === 'assistant').length;
      return { ...answerOf(request), content: `Step ${stage + 1}: following the playbook` };
    };
    const server = await serve(Array.from({ length: 100 }, () => withThoughts));
    const out = join(dir, 'solve');
    const solved = await dwb(['dqa', 'solve', '--questions', join(trainDir, 'held-out-questions.json'), '--engine', 'autoplan', '--playbook', join(trainDir, 'v002.json'), '--db', 'rdb', '--base-url', server.baseUrl, '--model', 'scripted', '--tool-mode', 'tools', '--out', out]);
    expect(server.failures).toEqual([]);
    expect(solved.stderr).not.toMatch(/dwb dqa: /);
    expect(solved.code).toBe(0);
    for (const id of split.heldOut) expect((JSON.parse(readFileSync(join(out, id, 'result.json'), 'utf8')) as QuestionResult).correct).toBe(true);

    const inference = server.chatRequests();
    expect(inference).toHaveLength(6);
    const hintStrings = ['Training hint', 'the best decision was', 'Summary of', 'Flaws of', 'Revision of', 'Experiences begin'];
    for (const request of inference) {
      const text = request.chat.messages.map(messageText).join('\n');
      for (const hint of hintStrings) expect(text).not.toContain(hint);
      expect(request.chat.temperature).toBe(0);
      const opening = messageText(request.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });
      expect(opening.split(PLAYBOOK_2)).toHaveLength(2);
      expect(opening.indexOf('# Business rules')).toBeLessThan(opening.indexOf('# Playbook'));
      expect(opening.indexOf('# Playbook')).toBeLessThan(opening.indexOf('# Question'));
      expect(text).not.toContain(PLAYBOOK_1);
    }
    const notebook = JSON.parse(readFileSync(join(out, split.heldOut[0] as string, 'notebook.json'), 'utf8')) as { cells: { kind: string; source: string; data: { steps?: string[] } }[] };
    expect(notebook.cells.find((cell) => cell.kind === 'plan')?.data.steps).toEqual(['Query the upstream nodes of the home node with their ingoing value and total power.', 'Compare them by the rules.', 'Finish with the best node.']);
    expect(notebook.cells.filter((cell) => cell.kind === 'thought').map((cell) => cell.source)).toEqual(['Step 1: following the playbook', 'Step 2: following the playbook']);

    // Without a playbook, autoplan would be plain ReAct tabled as AutoPlan: it is refused before any model call, and nothing is written.
    const bare = await serve(Array.from({ length: 100 }, () => withThoughts));
    const bareOut = join(dir, 'bare');
    const plain = await dwb(['dqa', 'solve', '--questions', join(trainDir, 'held-out-questions.json'), '--engine', 'autoplan', '--workspace', join(dir, 'empty-workspace'), '--db', 'rdb', '--base-url', bare.baseUrl, '--model', 'scripted', '--tool-mode', 'tools', '--out', bareOut]);
    expect(plain.code).not.toBe(0);
    expect(plain.stderr).toContain('AutoPlan follows a learned playbook and has none: no --playbook given and none pinned for locating × rdb');
    expect(plain.stderr).toContain('without a playbook the run would be plain ReAct, not AutoPlan');
    expect(bare.chatRequests()).toHaveLength(0);
    expect(existsSync(bareOut)).toBe(false);

    // The versions reviewed in a workspace: the pinned one is what autoplan follows by default, and its hash is in every run's log.
    const workspace = join(dir, 'workspace');
    const imported = await dwb(['playbook', 'import', trainDir, '--workspace', workspace]);
    expect(imported.stdout).toContain('added 2 version(s)');
    const refused = await dwb(['playbook', 'pin', v2.hash, '--workspace', workspace]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/is proposed: only an accepted version can be pinned/);
    expect((await dwb(['playbook', 'accept', v2.hash.slice(0, 8), '--workspace', workspace])).stdout).toBe(`${v2.hash} locating × rdb v2: accepted\n`);
    expect((await dwb(['playbook', 'pin', v2.hash, '--workspace', workspace])).code).toBe(0);
    expect((await dwb(['playbook', 'list', '--workspace', workspace])).stdout).toMatch(new RegExp(`locating-rdb v002 ${v2.hash} accepted PINNED`));
    const pinnedServer = await serve(Array.from({ length: 100 }, () => withThoughts));
    const pinnedOut = join(dir, 'pinned');
    const pinned = await dwb(['dqa', 'solve', '--questions', join(trainDir, 'held-out-questions.json'), '--engine', 'autoplan', '--workspace', workspace, '--db', 'rdb', '--base-url', pinnedServer.baseUrl, '--model', 'scripted', '--tool-mode', 'tools', '--out', pinnedOut]);
    expect(pinned.code).toBe(0);
    expect(pinned.stderr).toContain(`playbook: pinned version ${v2.hash.slice(0, 12)}`);
    for (const request of pinnedServer.chatRequests()) expect(request.chat.messages.map(messageText).join('\n')).toContain(PLAYBOOK_2);
    const runDir = join(pinnedOut, split.heldOut[0] as string);
    const start = JSON.parse(readFileSync(join(runDir, 'run-log.jsonl'), 'utf8').split('\n')[0] ?? '{}') as { event: { playbook?: { version: string; text: string } } };
    expect(start.event.playbook).toMatchObject({ version: v2.hash, text: PLAYBOOK_2 });
    expect((await runDwb(['report', '--run', runDir, '--format', 'json', '--out', join(dir, 'bundle.json')], { env: { DWB_CONFIG_DIR: join(dir, 'no-key-config') } })).code).toBe(0);
    // A config folder of its own, without a signing key: whether another suite made one does not matter.
    const verified = await runDwb(['verify', '--allow-unsigned', join(dir, 'bundle.json')], { env: { DWB_CONFIG_DIR: join(dir, 'no-key-config') } });
    expect(verified.stdout).toMatch(new RegExp(`^verified \\(unsigned[^\n]*\nplaybook ${v2.hash} · text sha256 [0-9a-f]{64}\n`));
  }, 300_000);

  it('refuses a --playbook that is missing, empty or not a playbook version, naming it', async () => {
    const dir = tempDir();
    const questionsFile = writeQuestionFile(join(dir, 'locating.json'), 'locating', questions.slice(0, 1));
    writeFileSync(join(dir, 'empty.md'), '  \n');
    writeFileSync(join(dir, 'other.json'), '{"format":"decision-workbench/notebook"}');
    for (const [file, message] of [
      ['missing.json', /cannot read --playbook .*missing\.json: no such file \(ENOENT\)/],
      ['empty.md', /--playbook .*empty\.md holds an empty playbook/],
      ['other.json', /--playbook .*other\.json is not a playbook version/],
    ] as const) {
      const result = await dwb(['dqa', 'solve', '--questions', questionsFile, '--engine', 'autoplan', '--playbook', join(dir, file), '--db', 'rdb', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'scripted', '--out', join(dir, 'out')]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(message);
    }
  }, 120_000);
});
