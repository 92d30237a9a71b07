import { z } from 'zod';
import { parseLikelihood, valuesPerFactor, type FactorSpec, type ForecastFactor } from './belief';
import { extractJsonObject } from './model-calls';

/** Reading the model's JSON answers, with the problems stated so they can be sent back. */

const forecastSchema = z.object({
  factors: z.array(
    z.object({
      name: z.string(),
      values: z.array(z.object({ value: z.string().min(1), likelihood: z.string() })),
    }),
  ),
});

export type Parsed<T> = { ok: true; value: T; notes: string[] } | { ok: false; problems: string[] };

const nameKey = (name: string): string => name.trim().toLowerCase().replace(/\s+/g, ' ');

/**
 * A forecast answer: every asked factor exactly once (matched by name, ignoring case and
 * spacing), 3 distinct values each, each likelihood on the 6-level scale. Factors the model
 * added are ignored and noted.
 */
export function parseForecast(text: string, asked: readonly FactorSpec[]): Parsed<ForecastFactor[]> {
  const json = extractJsonObject(text);
  if (!json) return { ok: false, problems: ['the answer is not a JSON object'] };
  const parsed = forecastSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, problems: [`the JSON does not have the asked shape (${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''})`] };
  }
  const byName = new Map(parsed.data.factors.map((factor) => [nameKey(factor.name), factor]));
  const problems: string[] = [];
  const notes: string[] = [];
  const result: ForecastFactor[] = [];
  for (const spec of asked) {
    const answer = byName.get(nameKey(spec.name));
    if (!answer) {
      problems.push(`"${spec.name}" is missing`);
      continue;
    }
    if (spec.fixedValues) {
      // [ext] The analyst's mapped values: each exactly once, in the analyst's order and spelling.
      const fixed = spec.fixedValues;
      const missing = fixed.filter((value) => !answer.values.some((entry) => nameKey(entry.value) === nameKey(value)));
      const extra = answer.values.filter((entry) => !fixed.some((value) => nameKey(entry.value) === nameKey(value)));
      if (missing.length || extra.length || answer.values.length !== fixed.length) {
        problems.push(`"${spec.name}" must list exactly the outcomes ${fixed.map((value) => `"${value}"`).join(', ')}${missing.length ? `; missing ${missing.map((value) => `"${value}"`).join(', ')}` : ''}${extra.length ? `; not asked for ${extra.map((entry) => `"${entry.value}"`).join(', ')}` : ''}`);
        continue;
      }
      answer.values.sort((a, b) => fixed.findIndex((value) => nameKey(value) === nameKey(a.value)) - fixed.findIndex((value) => nameKey(value) === nameKey(b.value)));
      answer.values.forEach((entry, index) => (entry.value = fixed[index] as string));
    } else if (answer.values.length !== valuesPerFactor) {
      problems.push(`"${spec.name}" has ${answer.values.length} outcomes, not ${valuesPerFactor}`);
      continue;
    }
    if (new Set(answer.values.map((entry) => nameKey(entry.value))).size !== answer.values.length) {
      problems.push(`"${spec.name}" repeats an outcome`);
      continue;
    }
    const values: ForecastFactor['values'] = [];
    for (const entry of answer.values) {
      const likelihood = parseLikelihood(entry.likelihood);
      if (!likelihood) problems.push(`"${spec.name}": "${entry.likelihood}" is not one of the likelihood words`);
      else {
        if (likelihood !== entry.likelihood) notes.push(`"${spec.name}": read "${entry.likelihood}" as "${likelihood}"`);
        values.push({ value: entry.value.trim(), likelihood });
      }
    }
    if (values.length === answer.values.length) result.push({ name: spec.name, scope: spec.scope, ...(spec.fixedValues ? { fixedValues: spec.fixedValues } : {}), values });
  }
  const askedKeys = new Set(asked.map((spec) => nameKey(spec.name)));
  for (const factor of parsed.data.factors) if (!askedKeys.has(nameKey(factor.name))) notes.push(`ignored an unknown not asked for: "${factor.name}"`);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value: result, notes };
}

export interface RankingAnswer {
  /** 1-based numbers as the model gave them (before repair). */
  rank: number[];
  decision: number | null;
  explanation: string;
}

/** An integer, or a string holding exactly one integer ("Scenario 5") [ext: lenient reading]. */
function numberOf(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const matches = value.match(/-?\d+(\.\d+)?/g);
    if (matches?.length === 1) return Number(matches[0]);
  }
  return Number.NaN;
}

/** A ranking answer: a non-empty `rank` list is required; `decision` and `explanation` are kept when present. */
export function parseRanking(text: string): Parsed<RankingAnswer> {
  const json = extractJsonObject(text);
  if (!json) return { ok: false, problems: ['the answer is not a JSON object'] };
  const rank = json.rank;
  if (!Array.isArray(rank) || rank.length === 0) return { ok: false, problems: ['"rank" is missing or empty'] };
  const decision = json.decision === undefined ? null : numberOf(json.decision);
  return {
    ok: true,
    value: { rank: rank.map(numberOf), decision: decision === null || Number.isNaN(decision) ? null : decision, explanation: typeof json.explanation === 'string' ? json.explanation : '' },
    notes: [],
  };
}

/**
 * Maps a baseline's answer to an action [spec §0.2, the decision normaliser without the LLM
 * step]: the JSON `decision` (or the whole text when there is no JSON) matched as an exact
 * name, case-insensitively, as "Option k", or as the only action name it mentions. Null when
 * none or several match.
 */
export function mapDecision(text: string, actions: readonly string[]): number | null {
  const json = extractJsonObject(text);
  const said = typeof json?.decision === 'string' ? json.decision : typeof json?.decision === 'number' ? `Option ${json.decision}` : text;
  const exact = actions.findIndex((action) => nameKey(action) === nameKey(said));
  if (exact >= 0) return exact;
  const option = /\boption\s+(\d+)\b/i.exec(said);
  if (option && json) {
    const index = Number(option[1]) - 1;
    if (index >= 0 && index < actions.length) return index;
  }
  const mentioned = actions
    .map((action, index) => ({ index, hit: new RegExp(`\\b${action.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i').test(said) }))
    .filter((entry) => entry.hit);
  return mentioned.length === 1 ? (mentioned[0]?.index ?? null) : null;
}
