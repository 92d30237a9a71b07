import type { ChatMessage } from '../../../llm/types';
import { verbalScale, type BeliefFactor, type FactorSpec, type State } from './belief';

/**
 * The prompts of a DeLLMa run, in this project's own words. Each prompt states the goal,
 * the actions and the context the analyst supplied; the ranking prompt adds the forecast and
 * the numbered state–action pairs of one minibatch. Output is asked for as one JSON object.
 */
export interface ProblemFrame {
  goal: string;
  /** Label of each action as offered, e.g. "plant apple on all 10 acres". */
  actions: { name: string; label: string }[];
  context: string;
}

const system = 'You help a decision maker choose under uncertainty. Answer with exactly one JSON object and nothing else.';

function frameText(frame: ProblemFrame): string {
  return [
    'What I know:',
    frame.context,
    '',
    `My goal: ${frame.goal}`,
    '',
    'The options open to me:',
    ...frame.actions.map((action, index) => `Option ${index + 1}. ${action.name}: ${action.label}`),
  ].join('\n');
}

export function forecastMessages(context: string, goal: string, factors: readonly FactorSpec[]): ChatMessage[] {
  const user = [
    'What I know:',
    context,
    '',
    `My goal: ${goal}`,
    '',
    'Before deciding, I want your belief about the unknowns below, as they will turn out over the period my decision is about.',
    'For each unknown, give exactly 3 distinct outcomes it could take (short phrases that together cover what could happen), and say how likely each outcome is using only these words:',
    verbalScale.map((label) => `"${label}"`).join(', ') + '.',
    '',
    'The unknowns:',
    ...factors.map((factor, index) => `${index + 1}. ${factor.name}`),
    '',
    ...fixedValuesText(factors),
    'Reply with one JSON object of this shape, listing every unknown above with its name spelled as given:',
    '{"factors": [{"name": "<unknown>", "values": [{"value": "<outcome>", "likelihood": "<one of the words>"}, {…}, {…}]}, …]}',
  ].join('\n');
  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
}

/** [ext] Unknowns whose outcomes the analyst fixed (a what-if mapping): the model gives only the likelihoods. */
function fixedValuesText(factors: readonly FactorSpec[]): string[] {
  const fixed = factors.filter((factor) => factor.fixedValues);
  if (fixed.length === 0) return [];
  return [
    'For these unknowns the outcomes are already set: list exactly these outcomes, spelled as given, each with its likelihood, instead of naming outcomes of your own:',
    ...fixed.map((factor) => `- ${factor.name}: ${factor.fixedValues?.join('; ')}`),
    '',
  ];
}

export function beliefText(factors: readonly BeliefFactor[]): string {
  return factors.map((factor) => `- ${factor.name}: ${factor.values.map((entry) => `${entry.value} (${entry.likelihood})`).join('; ')}`).join('\n');
}

export function stateText(factors: readonly BeliefFactor[], state: State): string {
  return factors.map((factor, index) => `${factor.name} = ${factor.values[state[index] ?? 0]?.value ?? '?'}`).join(', ');
}

export function rankingMessages(frame: ProblemFrame, factors: readonly BeliefFactor[], entries: { state: State; action: number }[]): ChatMessage[] {
  const user = [
    frameText(frame),
    '',
    'I will weigh my options by expected utility. You already gave me this forecast of the unknowns:',
    beliefText(factors),
    '',
    'Below are possible futures drawn from that forecast, each combined with one of my options. Judge each numbered scenario by how good its outcome would be for my goal if that future came true and I took that option, and order all of them from best to worst.',
    '',
    ...entries.map((entry, index) => {
      const action = frame.actions[entry.action];
      return `Scenario ${index + 1}. Future: ${stateText(factors, entry.state)}. Option: ${action?.name ?? '?'} (${action?.label ?? ''})`;
    }),
    '',
    `Reply with one JSON object: {"decision": <number of the best scenario>, "rank": [all scenario numbers 1 to ${entries.length}, best first, each exactly once], "explanation": "<why, mentioning what drives the outcome of each option>"}`,
  ].join('\n');
  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
}

const decisionFormat = '{"decision": "<name of the option you choose>", "explanation": "<why>"}';

export function zeroShotMessages(frame: ProblemFrame): ChatMessage[] {
  return [
    { role: 'system', content: system },
    { role: 'user', content: `${frameText(frame)}\n\nWhich one option should I take? Reply with one JSON object: ${decisionFormat}` },
  ];
}

/** Chain of thought in three calls [paper §4]: unknowns, then their likelihoods, then the choice. */
export function cotFactorsMessages(frame: ProblemFrame): ChatMessage[] {
  return [
    { role: 'system', content: 'You help a decision maker choose under uncertainty.' },
    { role: 'user', content: `${frameText(frame)}\n\nFirst, list the unknown factors that will decide which option turns out best.` },
  ];
}

export function cotLikelihoodMessages(frame: ProblemFrame, factors: string): ChatMessage[] {
  return [
    { role: 'system', content: 'You help a decision maker choose under uncertainty.' },
    { role: 'user', content: `${frameText(frame)}\n\nThe unknown factors that matter, as listed earlier:\n${factors}\n\nNow estimate how likely each of these factors is to occur over the period of the decision.` },
  ];
}

export function cotDecisionMessages(frame: ProblemFrame, factors: string, likelihoods: string): ChatMessage[] {
  return [
    { role: 'system', content: system },
    {
      role: 'user',
      content: `${frameText(frame)}\n\nThe unknown factors that matter, as listed earlier:\n${factors}\n\nHow likely they are, as estimated earlier:\n${likelihoods}\n\nTaking these factors and their likelihoods into account, which one option should I take? Reply with one JSON object: ${decisionFormat}`,
    },
  ];
}
