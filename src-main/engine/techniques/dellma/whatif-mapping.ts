/**
 * [ext] The analyst's what-if mapping of a DeLLMa run on their own data: each value of an
 * unknown, and each option, mapped to a change of the data, and an objective query, so a
 * sampled future's outcome can also be computed exactly in the what-if sandbox
 * (./exact-outcomes.ts). One line each in the question, after the `Options:` and `Unknowns:`
 * lines:
 *
 *   What-if demand = low: UPDATE sales SET qty = qty * 0.8
 *   What-if demand = steady: none
 *   What-if option: UPDATE store SET open = 1 WHERE region = :candidate
 *   What-if option south: INSERT INTO store (region, open) VALUES ('south', 1)
 *   What-if objective: SELECT sum(qty * price) FROM sales
 *   What-if direction: maximize
 *
 * `none` maps to no change. `option:` holds for every option, its name bound as :candidate
 * ($candidate on DuckDB, PostgreSQL and MySQL data); `option <name>:` is that option's own
 * change and wins over it. With a mapping, the mapped values ARE the unknown's values: the
 * model only gives their likelihoods. The SQL is never shown to the model.
 */

export interface MappedValue {
  value: string;
  /** The change applied when the unknown takes this value; null: the data as it is. */
  change: string | null;
}

export interface WhatIfMapping {
  /** Mapped unknowns, in the order of the Unknowns line, each value in the order of its lines. */
  factors: { name: string; values: MappedValue[] }[];
  /** The change for every option (binds :candidate; null change: none), if given. */
  everyOption: { change: string | null } | null;
  /** An option's own change (null: no change), winning over `everyOption`. */
  perOption: { option: string; change: string | null }[];
  objective: string;
  direction: 'maximize' | 'minimize';
}

export type MappingRead = { ok: true; mapping: WhatIfMapping | null } | { ok: false; problems: string[] };

const LINE = /^\s*what-if\b(.*)$/i;
const CANDIDATE = /[:@$]candidate\b/;

/** The line a question's what-if lines start with; the goal the model sees leaves them out. */
export function isWhatIfLine(line: string): boolean {
  return LINE.test(line);
}

const sameName = (left: string, right: string): boolean => left.trim().toLowerCase() === right.trim().toLowerCase();

/**
 * Reads the what-if lines of `question`. `unknowns` and `options` are what the question's
 * Unknowns and Options lines list (null when absent): a mapped unknown must be one of the
 * unknowns, a named option one of the options. Problems name the question's line number.
 */
export function readWhatIfMapping(question: string, listed: { unknowns: readonly string[] | null; options: readonly string[] | null }): MappingRead {
  const problems: string[] = [];
  const factors = new Map<string, { name: string; values: MappedValue[] }>();
  const perOption: WhatIfMapping['perOption'] = [];
  let everyOption: string | null | undefined;
  let objective: string | undefined;
  let direction: WhatIfMapping['direction'] | undefined;
  let any = false;

  question.split('\n').forEach((text, index) => {
    const match = LINE.exec(text);
    if (!match) return;
    any = true;
    const at = `line ${index + 1}`;
    const rest = match[1] ?? '';
    const colon = rest.indexOf(':');
    if (colon < 0) {
      problems.push(`${at}: "${text.trim()}" has no ":" (write "What-if <unknown> = <value>: <change>", "What-if option: <change>", "What-if objective: <query>")`);
      return;
    }
    const head = rest.slice(0, colon).trim();
    const body = rest.slice(colon + 1).trim();
    if (!body) {
      problems.push(`${at}: nothing after the ":" (a change, a query, or "none" for no change)`);
      return;
    }
    const change = body.toLowerCase() === 'none' ? null : body;
    const keyword = head.toLowerCase();
    if (keyword === 'objective') {
      if (objective !== undefined) problems.push(`${at}: a second objective (give one)`);
      else if (change === null) problems.push(`${at}: the objective must be a query returning one number, not "none"`);
      else objective = change;
    } else if (keyword === 'direction') {
      const value = body.toLowerCase();
      if (direction !== undefined) problems.push(`${at}: a second direction (give one)`);
      else if (value === 'maximize' || value === 'minimize') direction = value;
      else problems.push(`${at}: the direction is "maximize" or "minimize", not "${body}"`);
    } else if (keyword === 'option') {
      if (everyOption !== undefined) problems.push(`${at}: a second change for every option (give one, or one per option with "What-if option <name>:")`);
      else if (change !== null && !CANDIDATE.test(change)) problems.push(`${at}: the change for every option must name :candidate (on DuckDB, PostgreSQL or MySQL data $candidate), which is bound to each option's name; for changes that differ otherwise, write one "What-if option <name>:" line per option`);
      else everyOption = change;
    } else if (keyword.startsWith('option ')) {
      const name = head.slice('option '.length).trim();
      const option = listed.options ? listed.options.find((listedOption) => sameName(listedOption, name)) : name;
      const withColon = listed.options?.find((listedOption) => listedOption.toLowerCase().startsWith(`${name.toLowerCase()}:`));
      if (!option && withColon) problems.push(`${at}: the option "${withColon}" holds a ":", which ends a what-if line's head, so it cannot have a line of its own; map it with "What-if option: <change naming :candidate>"`);
      else if (!option) problems.push(`${at}: "${name}" is not one of the options (${listed.options?.join('; ')})`);
      else if (perOption.some((entry) => sameName(entry.option, option))) problems.push(`${at}: a second change for option "${option}"`);
      else perOption.push({ option, change });
    } else if (head.includes('=')) {
      const equals = head.indexOf('=');
      const factorName = head.slice(0, equals).trim();
      const value = head.slice(equals + 1).trim();
      const factor = listed.unknowns?.find((unknown) => sameName(unknown, factorName));
      if (!factorName || !value) problems.push(`${at}: write "What-if <unknown> = <value>: <change>"`);
      else if (!factor) problems.push(`${at}: "${factorName}" is not one of the unknowns ${listed.unknowns ? `(${listed.unknowns.join('; ')})` : '(list them first: "Unknowns: a; b")'}`);
      else {
        const entry = factors.get(factor) ?? { name: factor, values: [] };
        if (entry.values.some((known) => sameName(known.value, value))) problems.push(`${at}: "${factor}" = "${value}" is mapped twice`);
        else entry.values.push({ value, change });
        factors.set(factor, entry);
      }
    } else {
      problems.push(`${at}: "What-if ${head}" is none of "<unknown> = <value>", "option", "option <name>", "objective", "direction"`);
    }
  });

  if (!any) return { ok: true, mapping: null };
  for (const factor of factors.values()) {
    if (factor.values.length < 2) problems.push(`"${factor.name}" has one mapped value; map each value it can take (at least two)`);
  }
  if (objective === undefined) problems.push('no "What-if objective: <query>" line: the exact outcomes need a query that returns one number');
  if (factors.size === 0 && everyOption === undefined && perOption.length === 0) problems.push('no unknown or option is mapped to a change');
  if (problems.length) return { ok: false, problems };
  const order = listed.unknowns ?? [];
  return {
    ok: true,
    mapping: {
      factors: [...factors.values()].sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name)),
      everyOption: everyOption === undefined ? null : { change: everyOption },
      perOption,
      objective: objective as string,
      direction: direction ?? 'maximize',
    },
  };
}

/** The change an option maps to: its own, else the one for every option; undefined when unmapped. */
export function optionChange(mapping: WhatIfMapping, option: string): { change: string | null } | undefined {
  const own = mapping.perOption.find((entry) => sameName(entry.option, option));
  return own ? { change: own.change } : (mapping.everyOption ?? undefined);
}
