import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readActionLibrary } from '../../../src-main/engine/techniques/pearl/library';
import { mineActions } from '../../../src-main/engine/techniques/pearl/mining';
import { createOpenAiProvider } from '../../../src-main/llm/openai-provider';
import { parseProviderSettings } from '../../../src-main/llm/settings';
import { dqaRoot } from '../../support/fixtures';
import { runDwb } from '../../support/cli';
import { messageText, startScriptedOpenAiServer, type ScriptedOpenAiServer, type ScriptStep } from '../../support/scripted-openai';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();
const servers: ScriptedOpenAiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const actions = (prefix: string, count: number): string[] => Array.from({ length: count }, (_, index) => `- ${prefix}_${index + 1}(DB, node) : finds ${prefix.toLowerCase()} number ${index + 1} of a node`);
const proposal = (lines: string[]): string => `New actions:\n${lines.join('\n')}\n\n1. out1 = LOOKUP(DB, "krakow", "local_value") : values`;
const shardLines = (request: { chat: { messages: { role: string }[] } }): number =>
  (messageText(request.chat.messages.at(-1) as never).split('\n\nReply with')[0] ?? '').split('\n').filter((line) => line.startsWith('- ')).length;

describe('Pearl action mining', () => {
  it('merges proposals by name (the last definition wins), draws on the rules, and simplifies in shards of 80 until small, keeping every round', async () => {
    const rules = 'TPR(n, c) = TP_country(n, c) / TP_total(n); profit(c) = (LV(h) + IV(h)) * TPR(h, c)';
    const script: ScriptStep[] = [
      { content: proposal([...actions('A', 50), '- DUP(DB, node) : the first definition']) },
      { expectLastMessageContains: 'Where does LIV go?', expect: (request) => (messageText(request.chat.messages[0] as never).includes('A_50(DB, node)') ? undefined : 'the second question did not see the first one\'s actions'), content: proposal([...actions('B', 50), '- DUP(DB, node) : the second definition']) },
      { expectLastMessageContains: [rules, 'every quantity these business rules define'], content: proposal(['- TRADE_POWER_SHARE(DB, node, country) : a country\'s share of the trading power on a node']) },
      // Round 1: 109 free actions (CONCAT is kept) in shards of 80 → 2 calls.
      {
        expect: (request) => (shardLines(request) === 80 ? undefined : `shard 1 has ${shardLines(request)} actions`),
        content: ['- FIND_VALUE(DB, node) : a node\'s value [from: A_1, A_2, LOOKUP]', ...Array.from({ length: 11 }, (_, index) => `- KEEP_${index + 1}(DB, node) : kept [from: A_${index + 3}]`)].join('\n'),
      },
      { expect: (request) => (shardLines(request) === 29 ? undefined : `shard 2 has ${shardLines(request)} actions`), content: Array.from({ length: 8 }, (_, index) => `- LATE_${index + 1}(X) : kept [from: B_${index + 30}]`).join('\n') },
      // Round 2: 20 free actions → 1 call.
      { expect: (request) => (shardLines(request) === 20 ? undefined : `round 2 shard has ${shardLines(request)} actions`), content: Array.from({ length: 10 }, (_, index) => `- FINAL_${index + 1}(DB, node) : final [from: KEEP_${index + 1}, LATE_${(index % 8) + 1}]`).join('\n') },
    ];
    const server = await startScriptedOpenAiServer(script);
    servers.push(server);
    const provider = createOpenAiProvider(parseProviderSettings({ baseUrl: server.baseUrl, model: 'scripted', toolMode: 'text' }));
    const questions = [
      { id: 'L1', question: 'Where does SWE go?', rules },
      { id: 'L2', question: 'Where does LIV go?', rules },
    ];
    const { library, rounds } = await mineActions({ questions, provider, scenario: 'locating', schema: 'relational', target: 15 });
    server.verify();
    expect(rounds.map((round) => [round.kind, round.calls, round.before, round.after])).toEqual([
      ['proposals', 3, 8, 110],
      ['simplify', 2, 110, 21],
      ['simplify', 1, 21, 11],
    ]);
    const [proposals, first] = rounds;
    expect(proposals?.kind === 'proposals' && proposals.actions).toContain('DUP');
    expect(proposals?.kind === 'proposals' && proposals.proposals.map((p) => [p.source, p.programValid])).toEqual([['L1', true], ['L2', true], ['rules-1', true]]);
    expect(first?.kind === 'simplify' && first.merges[0]).toEqual({ into: 'FIND_VALUE', from: ['A_1', 'A_2', 'LOOKUP'] });
    expect(library.actions.map((action) => action.name).sort()).toEqual(['CONCAT', ...Array.from({ length: 10 }, (_, index) => `FINAL_${index + 1}`)].sort());
    expect(library.actions.find((action) => action.name === 'FINAL_1')?.provenance).toBe('mined: round 2 from KEEP_1, LATE_1');
    expect(readActionLibrary(JSON.stringify(library), 'mined')).toMatchObject({ scenario: 'locating', schema: 'relational' });
  });

  it('keeps the last definition of a name proposed twice', async () => {
    const server = await startScriptedOpenAiServer([{ content: proposal(['- DUP(DB, node) : the first definition']) }, { content: proposal(['- DUP(DB, node) : the second definition']) }]);
    servers.push(server);
    const provider = createOpenAiProvider(parseProviderSettings({ baseUrl: server.baseUrl, model: 'scripted', toolMode: 'text' }));
    const { library, rounds } = await mineActions({ questions: [{ id: 'q1', question: 'a?', rules: '' }, { id: 'q2', question: 'b?', rules: '' }], provider, scenario: 'building', schema: 'graph' });
    server.verify();
    expect(library.actions.find((action) => action.name === 'DUP')).toMatchObject({ definition: 'the second definition', provenance: 'mined: q2' });
    expect(rounds).toHaveLength(1); // 9 actions: small already, no simplification call
  });

  it('runs as dwb actions mine on DQA questions and writes the library and its rounds', async () => {
    const questions = (JSON.parse(readFileSync(join(dqaRoot(), 'locating', 'questions.json'), 'utf8')) as unknown[]).slice(0, 2);
    const dir = tempDir();
    const file = join(dir, 'questions.json');
    writeFileSync(file, JSON.stringify(questions));
    const server = await startScriptedOpenAiServer([
      { content: proposal(['- UPSTREAM(DB, node) : the nodes that send trade into a node']) },
      { content: proposal(['- None']) },
      { expectLastMessageContains: 'every quantity these business rules define', content: proposal(['- TRADE_SHARE(DB, node, country) : a country\'s share of power on a node']) },
      { content: '- READ(DB, node) : reads a node [from: LOOKUP, UPSTREAM, NEIGHBORS]\n- SHARE(DB, node, country) : a share [from: TRADE_SHARE, AGGREGATE]' },
    ]);
    servers.push(server);
    const out = join(dir, 'lib.json');
    const result = await runDwb(['actions', 'mine', '--questions', file, '--db', 'gdb', '--base-url', server.baseUrl, '--model', 'scripted', '--target', '5', '--out', out]);
    server.verify();
    expect(result.stderr).toContain('mining actions from 2 questions (locating, --db gdb)');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('round 0 (proposals): 3 model calls, 8 → 10 actions');
    expect(result.stdout).toContain('round 1 (simplify): 1 model call, 10 → 3 actions');
    const library = readActionLibrary(readFileSync(out, 'utf8'), out);
    expect(library).toMatchObject({ scenario: 'locating', schema: 'graph' });
    expect(library.actions.map((action) => action.name)).toEqual(['CONCAT', 'READ', 'SHARE']);
    const rounds = JSON.parse(readFileSync(join(dir, 'lib.rounds.json'), 'utf8')) as { rounds: { merges?: unknown[] }[] };
    expect(rounds.rounds[1]?.merges).toContainEqual({ into: 'READ', from: ['LOOKUP', 'UPSTREAM', 'NEIGHBORS'] });

    const bad = await runDwb(['actions', 'mine', '--questions', file, '--db', 'xdb', '--base-url', server.baseUrl, '--model', 'm', '--out', out]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('dwb actions: invalid-request: --db must be rdb or gdb, got "xdb"');
  });
});
