import type { Scenario } from '../contract/simulation';

/** The scenario parameters a simulator needs to check a decision (RunSimulator['known']). */
export interface ScenarioParameters {
  country?: string;
  home?: string;
  goods?: string;
}

/** Which parameters each simulator needs, in the order the composer asks for them. */
export const parametersNeeded: Record<Scenario, (keyof ScenarioParameters)[]> = {
  locating: ['country', 'home'],
  building: ['goods'],
};

/** How the analyst reads each parameter (composer fields, "not checked: the question names no …"). */
export const parameterLabels: Record<keyof ScenarioParameters, string> = {
  country: 'country',
  home: 'home node',
  goods: 'goods',
};

/**
 * A name as a question writes it: quoted ("SWE", 'SWE', “SWE”) or one bare word of letters,
 * digits and underscores (baltic_sea, USA1836). A quoted name may hold spaces.
 */
const NAME = String.raw`(?:"([^"\n]{1,100})"|'([^'\n]{1,100})'|“([^”\n]{1,100})”|‘([^’\n]{1,100})’|([A-Za-z0-9][A-Za-z0-9_]{0,99}))`;

/** Words a bare name never is: "the country named is …" or "price of the goods" name nothing. */
const NOT_A_NAME = new Set([
  'a', 'an', 'the', 'is', 'are', 'was', 'our', 'my', 'its', 'their', 'this', 'that', 'which', 'what', 'node', 'named', 'called', 'goods', 'country', 'of', 'to', 'in', 'at', 'for',
  // The subject of "where should I place …" and the place of "profit at home" are no names either.
  'i', 'we', 'you', 'one', 'they', 'home',
]);

/**
 * Phrases that introduce each parameter, most specific first. The DQA templates ("the country
 * named "SWE"", "Our home node is "baltic_sea"", "the market price of furniture") come first;
 * the rest are the ways an analyst writes the same when typing a question.
 */
const PATTERNS: Record<keyof ScenarioParameters, RegExp[]> = {
  country: [
    new RegExp(String.raw`\bcountry\s+(?:named|called)\s+${NAME}`, 'i'),
    new RegExp(String.raw`\bcountry\s*(?:is|:|=)\s*${NAME}`, 'i'),
    new RegExp(String.raw`\bruler\s+of\s+${NAME}`, 'i'),
    new RegExp(String.raw`\bcountry\s+${NAME}`, 'i'),
    // "Where should SWE place its merchant", "SWE's merchant"
    new RegExp(String.raw`\bshould\s+${NAME}\s+(?:place|put|send|allocate|move|station|steer)\b`, 'i'),
    new RegExp(String.raw`${NAME}['’]s\s+merchant\b`, 'i'),
  ],
  home: [
    new RegExp(String.raw`\bhome\s+(?:trade\s+)?node(?:\s+is\s+|\s+named\s+|\s+called\s+|\s*[:=]\s*|\s+)${NAME}`, 'i'),
    new RegExp(String.raw`\bhome\s*(?:is|:|=)\s*${NAME}`, 'i'),
    new RegExp(String.raw`\bsteer\s+trade\s+(?:to|towards|toward)\s+${NAME}`, 'i'),
    // "to maximise profit at baltic_sea": where the profit is counted is the home node.
    new RegExp(String.raw`\bprofits?\s+(?:at|in|on)\s+(?:the\s+)?${NAME}`, 'i'),
  ],
  goods: [
    new RegExp(String.raw`\bprice\s+of\s+(?:the\s+)?${NAME}`, 'i'),
    new RegExp(String.raw`\bgoods(?:\s+named\s+|\s+called\s+|\s+is\s+|\s*[:=]\s*)${NAME}`, 'i'),
  ],
};

/** The first name a pattern finds that is a name (not "the", "is", …), spelled as written. */
function firstName(text: string, patterns: readonly RegExp[]): string | undefined {
  for (const pattern of patterns) {
    const match = pattern.exec(text);
    if (!match) continue;
    const name = match.slice(1).find((group) => group !== undefined)?.trim();
    const quoted = match[5] === undefined;
    if (name && (quoted || !NOT_A_NAME.has(name.toLowerCase()))) return name;
  }
  return undefined;
}

/**
 * Reads the parameters a scenario's simulator needs from a decision question's own words,
 * deterministically (no model): Locating the country and home node, Building the goods. A
 * parameter the question does not name is absent; whether a named one exists in the data is
 * `checkParameters`' job (check-plan.ts).
 */
export function parametersFromQuestion(question: string, scenario: Scenario): ScenarioParameters {
  const found: ScenarioParameters = {};
  for (const parameter of parametersNeeded[scenario]) {
    const name = firstName(question, PATTERNS[parameter]);
    if (name !== undefined) found[parameter] = name;
  }
  return found;
}
