/**
 * What a resumed benchmark compares with the answers already recorded: the settings asked for
 * (from the command's options) against those a question's produced-by record holds, and the
 * settings known only from a run (every other run-start setting and extension).
 */
import { describe, expect, it } from 'vitest';
import type { ProducedBy } from '../../../src-main/contract/produced-by';
import type { QuestionResult } from '../../../src-main/benchmark/question-result';
import { intendedSettings, recordedExtras, recordedSettings, resumeRefusal, settingDifferences } from '../../../src-main/benchmark/resume-settings';
import { parseProviderSettings } from '../../../src-main/llm/settings';

const produced = (change: Partial<ProducedBy> = {}): ProducedBy => ({
  format: 'decision-workbench/produced-by',
  version: 1,
  technique: 'planrag',
  techniqueLabel: 'PlanRAG',
  variant: null,
  decidedBy: null,
  model: { configured: 'scripted', served: ['scripted'], endpoint: 'http://127.0.0.1:1/v1', file: null, description: '' },
  temperature: 0.2,
  maxTokensPerCall: 2048,
  maxTokensPerRun: null,
  maxSteps: 20,
  maxDurationMs: 900_000,
  toolMode: 'tools',
  structuredOutput: [],
  toolsOffered: [],
  seed: null,
  extensions: {},
  settings: { mode: 'auto' },
  fallbacks: [],
  productVersion: '1.0.0',
  ...change,
});
const result = (producedBy: ProducedBy | undefined): QuestionResult => ({ technique: 'planrag', ...(producedBy ? { producedBy } : {}) }) as QuestionResult;
const model = (name: string, baseUrl = 'http://127.0.0.1:1/v1') => ({ settings: parseProviderSettings({ baseUrl, model: name, toolMode: 'tools', temperature: 0.2, maxTokens: 2048 }) });

describe('resume settings', () => {
  it('match when only the endpoint (a restarted server) or the product version differ', () => {
    const recorded = recordedSettings(result(produced({ productVersion: '0.9.0' })));
    const intended = intendedSettings({ technique: 'planrag', variant: undefined, model: model('scripted', 'http://127.0.0.1:2/v1'), maxSteps: 20 });
    expect(settingDifferences({ ...recorded }, { ...intended })).toEqual([]);
  });

  it('name every setting asked for that differs, and say what to do', () => {
    const recorded = recordedSettings(result(produced()));
    const intended = intendedSettings({ technique: 'planrag', variant: undefined, model: model('another'), maxSteps: 5, playbook: ' 1. Query.\n' });
    const differences = settingDifferences({ ...recorded }, { ...intended });
    expect(differences).toEqual(['model scripted, now another', 'step limit 20, now 5', expect.stringMatching(/^playbook none, now sha256:[0-9a-f]{64}$/)]);
    expect(resumeRefusal('/out/L1', differences)).toMatch(/^\/out\/L1 was decided with other settings \(model scripted, now another; step limit 20, now 5; playbook none, now sha256:.*\): its answers would count as this run's\. Give another --out directory/);
  });

  it('compare the settings known only from a run, whatever their names, and extensions on or off', () => {
    const before = recordedExtras(produced({ settings: { mode: 'auto', fidelity: 'paper' }, extensions: { richFeedback: false } }));
    const after = recordedExtras(produced({ settings: { mode: 'step', fidelity: 'product' }, extensions: { richFeedback: true } }));
    expect(settingDifferences(before, after)).toEqual(['setting fidelity paper, now product', 'extension richFeedback off, now on']);
  });

  it('cannot compare a result recorded before results named their settings', () => {
    expect(recordedSettings(result(undefined))).toBeNull();
  });
});
