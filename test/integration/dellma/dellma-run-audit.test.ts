/**
 * `dwb run --technique dellma` with the simulator on (SPECS §3.6 oracle audit [ext]): the
 * options are the simulator's candidate names, and the simulator scores the elicited
 * utilities only after the decision. A scripted model whose rankings follow the simulator's
 * order gets Kendall τ = 1 and full pairwise agreement, and the simulator's best as decision.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dqaQuestionText } from '../../../src-main/benchmark/dqa-question-text';
import { dellmaAuditSchema, dellmaExpectedSchema, dellmaFitSchema, dellmaFrameSchema, dellmaSamplingSchema } from '../../../src-main/contract/dellma';
import type { LocatingQuestion } from '../../../src-main/dqa/dataset';
import { runDwb } from '../../support/cli';
import { devQuestions, simulate } from '../../support/dqa-technique-model';
import { sqliteFromDqaDump } from '../../support/fixtures';
import { messageText, startScriptedOpenAiServer, type ReceivedChatRequest, type ScriptedOpenAiServer, type ScriptedTurn } from '../../support/scripted-openai';
import { useTempDirs } from '../../support/temp';
import { forecastAnswer, isForecast, scenariosOf } from './scripted-dellma-model';

const tempDir = useTempDirs();
let server: ScriptedOpenAiServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const userText = (request: ReceivedChatRequest): string => messageText(request.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });

describe('dwb run --technique dellma with the simulator', () => {
  it('takes the simulator’s candidate names as options, decides in code, and audits the utilities after the decision', async () => {
    const question = devQuestions('locating', ['L1'])[0] as LocatingQuestion;
    const truth = simulate('locating', question);
    // The simulator's objective per candidate (maximised): the scripted rankings follow it.
    const objective = new Map(truth.candidates.map((row) => [row.candidate, row.after]));
    const byTruth = [...truth.candidates].sort((a, b) => b.after - a.after || a.candidate.localeCompare(b.candidate));
    const oracle = (request: ReceivedChatRequest): ScriptedTurn => {
      const text = userText(request);
      if (/Keep at most \d+ candidates/.test(text)) return { label: 'shortlist', content: JSON.stringify({ keep: byTruth.slice(0, 7).map((row) => row.candidate) }) };
      if (text.includes('Write one query that retrieves')) return { label: 'query', content: '```sql\nSELECT trade_node, local_value FROM trade_node\n```' };
      if (isForecast(request)) return { label: 'forecast', content: forecastAnswer(request) };
      const rank = [...scenariosOf(request)].sort((a, b) => (objective.get(b.option) ?? 0) - (objective.get(a.option) ?? 0) || a.number - b.number).map((scenario) => scenario.number);
      return { label: 'rank', content: JSON.stringify({ decision: rank[0], rank, explanation: 'Ordered by the value each node would bring home.' }) };
    };
    server = await startScriptedOpenAiServer(Array.from({ length: 30 }, () => oracle));
    const dir = tempDir();
    const database = sqliteFromDqaDump(`locating/${question.rdb}`, dir);
    const questionFile = join(dir, 'question.txt');
    writeFileSync(questionFile, dqaQuestionText(question));
    const out = tempDir();
    const result = await runDwb(['run', '--technique', 'dellma', '--connection', `sqlite:${database}`, '--question-file', questionFile, '--base-url', server.baseUrl, '--model', 'scripted', '--simulator', 'compat', '--country', question.country, '--home', question.home, '--out', out]);
    expect(server.failures).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n').at(-1)).toBe(`decision: ${truth.best}`);

    const events = readFileSync(join(out, 'run-log.jsonl'), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { event: { type: string; tool?: string; input?: unknown; verification?: { agrees: boolean } } }).event);
    const frame = dellmaFrameSchema.parse(events.find((event) => event.tool === 'dellma.frame')?.input);
    expect(frame.source).toBe('simulator');
    expect([...frame.actions].sort()).toEqual(byTruth.slice(0, Math.min(7, byTruth.length)).map((row) => row.candidate).sort());
    // No outcome reaches the model: the simulation runs after the expected utilities are computed.
    const expectedAt = events.findIndex((event) => event.tool === 'dellma.expected');
    expect(events.findIndex((event) => event.type === 'simulation')).toBeGreaterThan(expectedAt);
    expect(dellmaExpectedSchema.parse(events[expectedAt]?.input).chosen).toBe(truth.best);
    expect(events.find((event) => event.type === 'decision')?.verification?.agrees).toBe(true);

    // The sampling cell, shown before any ranking call, lists exactly the futures the rankings and the fit use.
    const samplingAt = events.findIndex((event) => event.tool === 'dellma.sampling');
    expect(samplingAt).toBeLessThan(events.findIndex((event) => event.tool === 'dellma.rank'));
    const sampling = dellmaSamplingSchema.parse(events[samplingAt]?.input);
    const fit = dellmaFitSchema.parse(events.find((event) => event.tool === 'dellma.fit')?.input);
    expect(sampling.futures).toHaveLength(16);
    const count = (states: string[]): Record<string, number> => Object.fromEntries([...new Set(states)].map((state) => [state, states.filter((other) => other === state).length]));
    expect(count(fit.items.map((item) => item.state))).toEqual(count((sampling.futures ?? []).flatMap((future) => frame.actions.map(() => future.state))));

    const audit = dellmaAuditSchema.parse(events.find((event) => event.tool === 'dellma.audit')?.input);
    expect(audit.rows.map((row) => row.outcome)).toEqual(frame.actions.map((action) => objective.get(action)));
    expect(audit.pairAgreement).toBe(1);
    expect(audit.comparedPairs).toBeGreaterThan(0);
    // Every pair of options with different objectives is ordered right; pairs tied in the
    // objective (nodes whose merchant changes nothing at home) count only in τ-b's denominator:
    // τ-b = (n0 − t) / √(n0 · (n0 − t)) = √((n0 − t) / n0), t the tied pairs.
    const outcomes = audit.rows.map((row) => row.outcome as number);
    const n0 = (outcomes.length * (outcomes.length - 1)) / 2;
    const tied = outcomes.flatMap((a, i) => outcomes.slice(i + 1).filter((b) => b === a)).length;
    expect(tied).toBe(10); // L1: two nodes change the profit, five tie
    expect(audit.tau).toBeCloseTo(Math.sqrt((n0 - tied) / n0), 12);

    // The reports read each step as its summary, with the record beside it.
    const reports = tempDir();
    for (const format of ['html', 'md'] as const) {
      const exported = await runDwb(['report', '--run', out, '--format', format, '--out', join(reports, `report.${format}`)]);
      expect(exported.code, exported.stderr).toBe(0);
    }
    const html = readFileSync(join(reports, 'report.html'), 'utf8');
    for (const step of ['frame', 'forecast', 'sampling', 'rank', 'fit', 'expected', 'audit']) expect(html).toContain(`<div class="item-label">DeLLMa · ${step}</div>`);
    expect(html).toContain(`Decision: ${truth.best}, margin`);
    const markdown = readFileSync(join(reports, 'report.md'), 'utf8');
    expect(markdown).toContain('**DeLLMa · audit:** \\[ext\\] Kendall τ between the expected utilities');
  });
});
