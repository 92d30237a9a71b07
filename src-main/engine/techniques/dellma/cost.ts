import { windows } from './minibatch';

/**
 * What a run will cost, before it runs: model calls and rough tokens, from |A|, s, b, q.
 * Tokens are estimated at 4 characters a token from the actual context and factor names;
 * plausible values are not known before the forecast, so each is assumed to take
 * `valueChars` characters. An estimate to budget with, not a bill.
 */
export interface CostInput {
  variant: 'pairs' | 'top1' | 'naive' | 'zero-shot' | 'cot' | 'sc';
  actions: number;
  perAction: number;
  naiveSamples: number;
  batch: number;
  overlap: number;
  contextChars: number;
  factorNameChars: number;
  factorCount: number;
  forecastCached: boolean;
  selfConsistency: number;
  valueChars?: number;
}

export interface CostEstimate {
  forecastCalls: number;
  rankingCalls: number;
  otherCalls: number;
  calls: number;
  promptTokens: number;
  completionTokens: number;
}

const charsPerToken = 4;
const answerTokens = 400;

export function estimateCost(input: CostInput): CostEstimate {
  const valueChars = input.valueChars ?? 18;
  const contextTokens = Math.ceil(input.contextChars / charsPerToken);
  const stateTokens = Math.ceil((input.factorNameChars + input.factorCount * (valueChars + 4) + 40) / charsPerToken);
  const beliefTokens = Math.ceil((input.factorNameChars + input.factorCount * 3 * (valueChars + 20)) / charsPerToken);
  if (input.variant === 'zero-shot' || input.variant === 'sc' || input.variant === 'cot') {
    const calls = input.variant === 'zero-shot' ? 1 : input.variant === 'sc' ? input.selfConsistency : 3;
    // CoT carries the earlier answers forward: the second call repeats one, the third two.
    const carried = input.variant === 'cot' ? 3 * answerTokens : 0;
    return { forecastCalls: 0, rankingCalls: 0, otherCalls: calls, calls, promptTokens: calls * contextTokens + carried, completionTokens: calls * answerTokens };
  }
  const forecastCalls = input.forecastCached ? 0 : 1;
  const batches =
    input.variant === 'naive'
      ? [input.naiveSamples]
      : windows(input.actions * input.perAction, input.batch, input.overlap).map((window) => window.size);
  const rankingPrompt = batches.reduce((sum, size) => sum + contextTokens + beliefTokens + size * stateTokens, 0);
  const rankingAnswer = batches.reduce((sum, size) => sum + answerTokens + size * 3, 0);
  const forecastPrompt = forecastCalls * (contextTokens + Math.ceil(input.factorNameChars / charsPerToken) + 200);
  const forecastAnswer = forecastCalls * input.factorCount * 3 * Math.ceil((valueChars + 40) / charsPerToken);
  return {
    forecastCalls,
    rankingCalls: batches.length,
    otherCalls: 0,
    calls: forecastCalls + batches.length,
    promptTokens: rankingPrompt + forecastPrompt,
    completionTokens: rankingAnswer + forecastAnswer,
  };
}
