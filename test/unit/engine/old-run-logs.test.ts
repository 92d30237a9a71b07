import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findChainBreak, type LoggedEvent } from '../../../src-main/audit/hash-chain';
import { parseRunLogLines, TraceReader } from '../../../src-main/audit/run-trace';
import { resumeStateFrom } from '../../../src-main/engine/resume-state';
import { readTranscript } from '../../../src-main/llm/transcript';
import { exportReport } from '../../../src-main/reports/export-report';
import { bundleFromRun } from '../../../src-main/reports/prepare-bundle';
import { readRunDirectory } from '../../../src-main/reports/run-directory';
import { repoRoot } from '../../support/fixtures';

const oldRun = join(repoRoot, 'fixtures/runs/planrag-before-plan-nodes');

describe('a run log written before plan steps had ids', () => {
  const text = readFileSync(join(oldRun, 'run-log.jsonl'), 'utf8');

  it('still verifies: its chain is intact', () => {
    const entries = text.trim().split('\n').map((line) => JSON.parse(line) as LoggedEvent);
    expect(entries).toHaveLength(22);
    expect(findChainBreak(entries)).toBeNull();
  });

  it('reads through the one trace reader: plans, queries, tokens, decision', () => {
    const trace = TraceReader.of(parseRunLogLines(text));
    expect(trace.unknown).toBe(0);
    expect(trace.plans.map((plan) => plan.steps)).toEqual([
      ['Home node values', 'Upstream nodes'],
      ['SWE power in krakow', 'Decide'],
    ]);
    expect(trace.plans.map((plan) => plan.nodes.map((node) => node.id))).toEqual([
      ['s1', 's2'],
      ['s1', 's2'],
    ]);
    expect(trace.plans[1]?.nodes[1]?.dependsOn).toEqual(['s1']);
    expect(trace.queryList().map((query) => query.step)).toEqual([2, 4]);
    expect(trace.spent).toEqual({ promptTokens: 810, completionTokens: 87, totalTokens: 897 });
    expect(trace.decision?.decision).toBe('krakow');
    expect(trace.ended?.status).toBe('answered');
  });

  it('gives a resume state as before', () => {
    const state = resumeStateFrom(parseRunLogLines(text) as LoggedEvent[], readTranscript(readFileSync(join(oldRun, 'transcript.jsonl'), 'utf8')));
    expect(state).toMatchObject({ planned: true, plan: ['SWE power in krakow', 'Decide'], queries: 2, queryCount: 2, tokens: 897, evidence: ['q1', 'q2'] });
  });

  it('seals, verifies and renders as a report', async () => {
    const bundle = bundleFromRun(readRunDirectory(oldRun), { at: '2026-01-01T00:00:00.000Z', generator: 'test' });
    const markdown = (await exportReport(bundle, 'md')).toString('utf8');
    expect(markdown).toContain('krakow feeds the home node');
    expect(markdown).toContain('SWE power in krakow');
    const html = (await exportReport(bundle, 'html')).toString('utf8');
    expect(html).toContain('SWE steers value from krakow.');
  });
});
