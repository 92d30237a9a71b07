import type { DellmaCostEstimate, DellmaRunSettings } from '../../../contract/dellma';
import { estimateCost } from './cost';
import { actionFactorName, listedAfter } from './frame';

/** Before the run the data the context query returns is unknown: it is assumed to be this long. */
export const assumedDataChars = 4000;
/** The most options a run weighs [paper: |A| ≤ 7]; more are shortlisted by one model call. */
const maxActions = 7;

/**
 * What a `dellma` run will cost, before it starts (the run composer): the sampling cell's
 * estimate (./cost.ts) for the options the question lists, plus the calls around it — the
 * context query, a candidates query when no options are listed, a shortlist when there are
 * more than seven, and the forecast. Without listed options the most, seven, is assumed.
 * `documentChars`: the attached documents as the context will hold them (./documents.ts).
 */
export function estimateDellmaRun(question: string, rules: string, settings: DellmaRunSettings, documentChars = 0): DellmaCostEstimate {
  const listed = listedAfter('options', question);
  const assumedActions = Math.min(listed?.length ?? maxActions, maxActions);
  const names = listed?.slice(0, assumedActions) ?? Array.from({ length: assumedActions }, (_, index) => `option ${index + 1}`);
  const factorNames = [...(listedAfter('unknowns', question) ?? []), ...names.map(actionFactorName)];
  const baseline = settings.variant === 'zero-shot' || settings.variant === 'cot' || settings.variant === 'sc';
  const contextChars = rules.length + assumedDataChars + documentChars;
  const cost = estimateCost({
    variant: settings.variant,
    actions: assumedActions,
    perAction: settings.perAction,
    naiveSamples: settings.naiveSamples,
    batch: settings.batch,
    overlap: settings.overlap,
    contextChars,
    factorNameChars: factorNames.reduce((sum, name) => sum + name.length, 0),
    factorCount: factorNames.length,
    forecastCached: baseline,
    selfConsistency: settings.selfConsistency,
  });
  // The context query, and the candidates query and the shortlist when the question needs them.
  const framing = 1 + (listed ? 0 : 1) + ((listed?.length ?? 0) > maxActions ? 1 : 0);
  const framingPrompt = framing * Math.ceil((question.length + 2000) / 4);
  return {
    actions: listed?.length ?? null,
    assumedActions,
    forecastCalls: cost.forecastCalls,
    rankingCalls: cost.rankingCalls,
    otherCalls: cost.otherCalls + framing,
    calls: cost.calls + framing,
    promptTokens: cost.promptTokens + framingPrompt,
    completionTokens: cost.completionTokens + framing * 100,
  };
}
