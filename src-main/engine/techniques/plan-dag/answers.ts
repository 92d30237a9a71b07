import { extractJson, replaceTags } from './plan-graph';

/** A node's answer as the answerer gave it: a value (scalar, list, object) and a short explanation. */
export interface NodeAnswer {
  value: unknown;
  explanation: string;
}

/**
 * Reads an answerer's reply `{"answer": …, "explanation": "…"}`; a reply that is not that JSON
 * is taken as a text answer, so a model that ignores the format still answers.
 */
export function readNodeAnswer(reply: string): NodeAnswer {
  const json = extractJson(reply);
  if (json !== null && typeof json === 'object' && !Array.isArray(json) && 'answer' in json) {
    const { answer, explanation } = json as { answer: unknown; explanation?: unknown };
    return { value: answer, explanation: typeof explanation === 'string' ? explanation : '' };
  }
  return { value: reply.trim(), explanation: '' };
}

/** Reads the final node's reply `{"decision": …, "rationale": …}`; null when it names no decision. */
export function readDecision(reply: string): { decision: string; rationale: string } | null {
  const json = extractJson(reply);
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return null;
  const { decision, rationale, answer } = json as { decision?: unknown; rationale?: unknown; answer?: unknown; explanation?: unknown };
  const chosen = decision ?? answer;
  if ((typeof chosen !== 'string' && typeof chosen !== 'number') || String(chosen).trim() === '') return null;
  const why = typeof rationale === 'string' ? rationale : typeof (json as { explanation?: unknown }).explanation === 'string' ? String((json as { explanation?: unknown }).explanation) : '';
  return { decision: String(chosen).trim(), rationale: why.trim() || 'No rationale given.' };
}

type Scalar = string | number | boolean | null;
const isScalar = (value: unknown): value is Scalar => value === null || ['string', 'number', 'boolean'].includes(typeof value);

/**
 * A value as it is written into a child's question, or null when it has no deterministic text
 * form (an object, a list of objects): then strict mode falls back to the paper's LLM rewrite.
 * A list is sorted and joined, so the same answers always give the same question.
 */
export function tagText(value: unknown): string | null {
  if (isScalar(value)) return value === null ? 'none' : String(value).trim();
  if (Array.isArray(value) && value.every(isScalar)) {
    const items = value.map((item) => (item === null ? 'none' : String(item).trim()));
    return items.length === 0 ? 'none' : [...items].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join(', ');
  }
  return null;
}

/**
 * Strict substitution [ext]: every tag replaced by its parent's answer, deterministically.
 * Returns the question, or the ids whose answers have no text form.
 */
export function substituteTags(template: string, answers: ReadonlyMap<string, NodeAnswer>): { question: string } | { unresolved: string[] } {
  const unresolved: string[] = [];
  const question = replaceTags(template, (id) => {
    const answer = answers.get(id);
    const text = answer ? tagText(answer.value) : null;
    if (text === null) {
      if (!unresolved.includes(id)) unresolved.push(id);
      return `<A${id.slice(1)}>`;
    }
    return text;
  });
  return unresolved.length > 0 ? { unresolved } : { question };
}

/** An answer as a node's prompt shows it (JSON for structured values). */
export function answerText(answer: NodeAnswer): string {
  const text = tagText(answer.value) ?? JSON.stringify(answer.value);
  return answer.explanation ? `${text} (${answer.explanation})` : text;
}
