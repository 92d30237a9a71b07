import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src-main/audit/canonical-json';
import type { QuestionResult } from '../../../src-main/benchmark/question-result';
import { resultsHtml } from '../../../src-main/benchmark/results-html';
import { resultsMarkdown } from '../../../src-main/benchmark/results-markdown';
import { resultsTable } from '../../../src-main/benchmark/results-table';
import { readRunFacts } from '../../../src-main/benchmark/run-facts';
import type { RunEvent } from '../../../src-main/contract/run';
import { RunLog } from '../../../src-main/engine/run-log';
import { useTempDirs } from '../../support/temp';

const tempDir = useTempDirs();

function logOf(events: RunEvent[]): string {
  const path = join(tempDir(), 'run-log.jsonl');
  writeFileSync(path, '');
  const log = new RunLog('run-efficiency', () => '2026-01-01T00:00:00.000Z');
  log.onEntry((entry) => appendFileSync(path, `${canonicalJson(entry)}\n`));
  for (const event of events) log.append(event);
  return path;
}

const response = (step: number, promptTokens: number): RunEvent => ({ type: 'model-response', step, content: '', toolCalls: [], usage: { promptTokens, completionTokens: 10, totalTokens: promptTokens + 10 }, latencyMs: 5 });

function result(id: string, overrides: Partial<QuestionResult>): QuestionResult {
  return {
    format: 'decision-workbench/benchmark-question',
    version: 1,
    id,
    scenario: 'locating',
    technique: 'plan-dag',
    db: 'rdb',
    dump: 'db/x.sql',
    questionsFile: '/q.json',
    status: 'answered',
    message: null,
    error: null,
    match: { raw: 'krakow', matched: 'krakow', rule: 'exact', alternatives: [] },
    simulator: { best: 'krakow', tied: ['krakow'], annotation: 'krakow', margin: 0.5, candidateCount: 3, rank: 1, notes: [] },
    correct: true,
    correctWithTies: true,
    flags: [],
    steps: 4,
    promptTokens: 1000,
    completionTokens: 100,
    totalTokens: 1100,
    wallMs: 4000,
    failure: { category: null, automatic: true, evidence: [] },
    decidedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

describe('largest prompt and critical-path time', () => {
  it('reads the largest single prompt and Plan*RAG’s critical-path time from a run log', () => {
    const facts = readRunFacts(
      logOf([
        response(1, 300),
        response(2, 1250),
        response(3, 700),
        { type: 'tool', step: 3, tool: 'plan-dag.summary', input: { nodeCalls: 2, criticalPathMs: 840, sequentialMs: 1500 }, output: 'summary' },
      ]),
    );
    expect(facts.largestPromptTokens).toBe(1250);
    expect(facts.criticalPathMs).toBe(840);
    const linear = readRunFacts(logOf([response(1, 90), response(2, 180)]));
    expect(linear).toMatchObject({ largestPromptTokens: 180, criticalPathMs: null });
  });

  it('shows both columns in the table, Markdown and HTML; wall time stands in when a technique reports no critical path', () => {
    const table = resultsTable(
      [
        result('L1', { largestPromptTokens: 900, criticalPathMs: 1000 }),
        result('L2', { largestPromptTokens: 1400, criticalPathMs: 3000 }),
        result('L1', { technique: 'planrag', largestPromptTokens: 5200, criticalPathMs: null, wallMs: 6000 }),
        // Recorded before the figures were kept: no largest prompt, wall time for the path.
        result('L2', { technique: 'planrag', wallMs: 2000 }),
      ],
      () => '2026-01-01T00:00:00.000Z',
    );
    const byTechnique = new Map(table.rows.map((row) => [row.technique, row]));
    expect(byTechnique.get('plan-dag')).toMatchObject({ largestPromptTokens: 1400, meanCriticalPathMs: 2000, meanWallMs: 4000 });
    expect(byTechnique.get('planrag')).toMatchObject({ largestPromptTokens: 5200, meanCriticalPathMs: 4000 });

    const markdown = resultsMarkdown(table);
    const header = markdown.split('\n').find((line) => line.includes('| Largest prompt |')) ?? '';
    expect(header).toContain('| Critical-path time |');
    const planDagLine = markdown.split('\n').find((line) => /^\| Plan\\\*RAG \| locating \| rdb \|/.test(line)) ?? '';
    expect(planDagLine).toMatch(/\| 1400 \| 2\.0 s \|$/);

    const html = resultsHtml(table);
    expect(html).toContain('<th>Largest prompt</th>');
    expect(html).toContain('<th>Critical-path time (mean, s)</th>');
    expect(html).toMatch(/<td>1400<\/td><td>2\.0<\/td>/);
    expect(html).toMatch(/<td>5200<\/td><td>4\.0<\/td>/);
  });
});
