/**
 * The produced-by record: derived from a run's events (as the engine's recorder writes it and as
 * readers of old logs derive it), who made a decision (a fallback, a copied simulate/whatif
 * ranking), and how it reads in words.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRunLogLines } from '../../../src-main/audit/run-trace';
import { deriveProducedBy, producedByOf } from '../../../src-main/audit/produced-by-trace';
import { decidedByText, producedByLines, producedBySchema, structuredOutputText } from '../../../src-main/contract/produced-by';
import { runEventSchema, type RunEvent } from '../../../src-main/contract/run';
import type { SimulationResult } from '../../../src-main/contract/simulation';
import { producedByRecorder, techniqueLabelOf } from '../../../src-main/engine/produced-by-recorder';
import { repoRoot } from '../../support/fixtures';

const start: RunEvent = {
  type: 'run-start',
  technique: 'planrag',
  question: 'Where?',
  rules: '',
  mode: 'auto',
  connection: { engine: 'sqlite', description: 'x' },
  model: { description: 'scripted at http://127.0.0.1:1/v1', toolMode: 'tools', endpoint: 'http://127.0.0.1:1/v1', name: 'scripted', temperature: 0.2, maxTokens: 2048 },
  limits: { maxSteps: 20, maxTokens: 50_000, maxDurationMs: 900_000 },
};
const response = (step: number, constrained?: 'tool-choice' | 'none', model = 'scripted-v2'): RunEvent => ({ type: 'model-response', step, content: '', toolCalls: [], usage: null, latencyMs: 1, model, ...(constrained ? { constrained } : {}) });
const simulation = (step: number, best: string, check = false): RunEvent => ({
  type: 'simulation',
  step,
  requested: null,
  result: { best, candidates: [], margin: 1, tied: [best], objective: 'profit', direction: 'maximize', candidateSet: 'nodes', notes: [], elapsedMs: 1, spec: { scenario: 'locating', country: 'SWE', home: 'baltic_sea', rules: 'compat' } } as SimulationResult,
  ...(check ? { check } : {}),
});
const decision = (step: number, text: string): RunEvent => ({ type: 'decision', step, decision: text, rationale: '', evidence: [] });
const end: RunEvent = { type: 'run-end', status: 'answered', message: null, steps: 3, totalTokens: 0 };

function record(events: RunEvent[]): RunEvent[] {
  const recorder = producedByRecorder({ earlier: [], productVersion: '9.9.9', modelFile: null });
  return events.map((event) => recorder.record(event));
}

describe('the produced-by recorder', () => {
  it('writes the whole record once, at run-end: model as served, limits, structured output per call, tools offered, product version', () => {
    const events = record([start, { type: 'model-request', step: 1, tools: ['plan', 'query'], messageCount: 2 }, response(1, 'tool-choice'), response(2), decision(2, 'krakow'), end]);
    const last = events.at(-1);
    if (last?.type !== 'run-end' || !last.producedBy) throw new Error('no record at the end');
    const produced = producedBySchema.parse(last.producedBy);
    expect(produced).toMatchObject({
      technique: 'planrag',
      techniqueLabel: 'PlanRAG',
      decidedBy: { technique: 'planrag', label: 'PlanRAG', fallback: null, toolAssisted: null },
      model: { configured: 'scripted', served: ['scripted-v2'], endpoint: 'http://127.0.0.1:1/v1', file: null },
      temperature: 0.2,
      maxTokensPerCall: 2048,
      maxTokensPerRun: 50_000,
      maxSteps: 20,
      toolMode: 'tools',
      structuredOutput: [
        { step: 1, constrained: 'tool-choice' },
        { step: 2, constrained: 'unknown' },
      ],
      toolsOffered: ['plan', 'query'],
      productVersion: '9.9.9',
      fallbacks: [],
      settings: { mode: 'auto' },
    });
    expect(events.filter((event) => event.type === 'run-end' && event.producedBy)).toHaveLength(1);
    expect(structuredOutputText(produced.structuredOutput)).toBe('1 of 2 calls constrained (tool-choice 1), 1 not recorded');
  });

  it('carries every setting run-start records, whatever its name, and the extensions on or off', () => {
    const withMore = { ...start, fidelity: 'paper', extensions: { richFeedback: false, simulateTool: true }, model: { ...start.model, topP: 1 } } as unknown as RunEvent;
    const produced = deriveProducedBy([withMore, end], { labelOf: techniqueLabelOf });
    expect(produced.settings).toMatchObject({ fidelity: 'paper', 'model.topP': 1, mode: 'auto' });
    expect(produced.extensions).toEqual({ richFeedback: false, simulateTool: true });
    expect(producedByLines(produced)).toContainEqual({ label: 'Extensions', value: 'richFeedback off, simulateTool on' });
    expect(producedByLines(produced)).toContainEqual({ label: 'Setting fidelity', value: 'paper' });
  });

  it('says every recorded setting in words: the resolved fidelity as the run said it, records and lists by their values, never JSON', () => {
    const fidelity = { fidelity: 'paper', temperature: 0, temperatureFrom: 'paper', callMaxTokens: { program: 256 }, extensions: [{ id: 'query-feedback', label: 'Richer database feedback', on: false }, { id: 'simulate-tool', label: 'Simulate tool offered', on: true }] };
    const withSettings = { ...start, fidelity, playbook: { version: 3, sha256: 'ab12', text: 'long' }, stops: ['query', 'program'], note: null } as unknown as RunEvent;
    const lines = producedByLines(deriveProducedBy([withSettings, end], { labelOf: techniqueLabelOf }));
    expect(lines).toContainEqual({ label: 'Fidelity', value: 'paper (temperature 0; tokens per call: program 256; extensions on: Simulate tool offered)' });
    expect(lines).toContainEqual({ label: 'Setting playbook', value: 'version 3, sha256 ab12' });
    expect(lines).toContainEqual({ label: 'Setting stops', value: 'query, program' });
    expect(lines).toContainEqual({ label: 'Setting note', value: 'none' });
    expect(lines.filter((line) => /[{}[\]"]/.test(line.value))).toEqual([]);
  });

  it('names a fallback as such: the technique that answered, whose fallback it was and why', () => {
    const fallback: RunEvent = { type: 'tool', step: 8, tool: 'pearl-fallback', input: { attempts: 8, fallback: 'planrag', reason: 'after 8 refused programs' }, output: '' };
    const recorder = producedByRecorder({ earlier: [], productVersion: null, modelFile: null });
    const events = [{ ...start, technique: 'pearl' }, fallback, decision(10, 'krakow'), end].map((event) => recorder.record(event as RunEvent));
    expect(recorder.decidedBy()).toMatchObject({ technique: 'planrag', fallback: { of: 'pearl' } });
    const made = events.find((event) => event.type === 'decision');
    expect(made?.type === 'decision' && made.origin).toEqual({ technique: 'planrag', label: 'PlanRAG', fallback: { of: 'pearl', ofLabel: 'Pearl', reason: 'after 8 refused programs' }, toolAssisted: null });
    expect(decidedByText(made?.type === 'decision' && made.origin ? made.origin : (undefined as never))).toBe("PlanRAG (Pearl's fallback after 8 refused programs)");
    // A log from before `reason` was written still says what happened.
    const old = deriveProducedBy([{ ...start, technique: 'pearl' }, { ...fallback, input: { attempts: 8, fallback: 'planrag' } }, decision(10, 'krakow'), end], { labelOf: techniqueLabelOf });
    expect(old.decidedBy?.fallback).toEqual({ of: 'pearl', ofLabel: 'Pearl', reason: 'after 8 failed attempts' });
  });

  it('labels a decision that repeats the best candidate of a simulate or whatif result seen before it as tool-assisted', () => {
    const copied = record([start, simulation(2, 'krakow'), decision(3, 'Krakow '), end]);
    expect(copied.find((event) => event.type === 'decision')).toMatchObject({ origin: { toolAssisted: { tool: 'simulate', step: 2 } } });
    const whatif: RunEvent = { type: 'whatif', step: 1, spec: {} as never, result: { best: 'lubeck', rows: [], margin: null, tied: [], direction: 'maximize', tolerance: 0, sourceDigestBefore: '', sourceDigestAfter: '' } as never, error: null };
    expect(deriveProducedBy([start, whatif, decision(2, 'lubeck'), end], { labelOf: techniqueLabelOf }).decidedBy?.toolAssisted).toEqual({ tool: 'whatif', step: 1 });
    expect(decidedByText({ technique: 'planrag', label: 'PlanRAG', fallback: null, toolAssisted: { tool: 'whatif', step: 1 } })).toBe('PlanRAG, tool-assisted: copied from whatif at step 1');
  });

  it('does not call a decision tool-assisted when it differs from the ranking, comes in the same turn, is the workbench\'s check or was computed in code', () => {
    const origin = (events: RunEvent[]) => deriveProducedBy(events, { labelOf: techniqueLabelOf }).decidedBy?.toolAssisted;
    expect(origin([start, simulation(2, 'lubeck'), decision(3, 'krakow'), end])).toBeNull();
    expect(origin([start, simulation(3, 'krakow'), decision(3, 'krakow'), end])).toBeNull();
    expect(origin([start, simulation(2, 'krakow', true), decision(3, 'krakow'), end])).toBeNull();
    expect(origin([start, simulation(2, 'krakow'), { ...decision(3, 'krakow'), computedBy: 'expected utility' } as RunEvent, end])).toBeNull();
  });

  it('derives the record of a log written before it existed (fixtures/runs), as far as the log tells', () => {
    const text = readFileSync(join(repoRoot, 'fixtures/runs/planrag-locating/run-log.jsonl'), 'utf8');
    const events = parseRunLogLines(text, 'run-log.jsonl').map((entry) => runEventSchema.parse(entry.event));
    const produced = producedByOf(events, techniqueLabelOf);
    expect(produced).toMatchObject({ technique: 'planrag', model: { configured: 'scripted', served: [] }, temperature: 0.2, maxSteps: 20, productVersion: null, decidedBy: { technique: 'planrag', fallback: null } });
    expect(produced?.structuredOutput.every((call) => call.constrained === 'unknown')).toBe(true);
    expect(producedByOf([], techniqueLabelOf)).toBeNull();
  });
});
