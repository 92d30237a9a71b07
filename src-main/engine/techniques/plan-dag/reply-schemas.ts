import type { OutputConstraint } from '../../../llm/types';

/**
 * The JSON schemas of Plan*RAG's structured replies: the plan (and a re-plan), a node's answer
 * and the final node's decision. Each request that expects one of these replies carries its
 * schema as `output`, so a provider that can hold the model to it does (a grammar in-process,
 * `response_format` over HTTP); elsewhere the prompt's format and the readers' leniency
 * (`readPlan`, `readNodeAnswer`, `readDecision`) and the plan's repair turns still apply.
 *
 * Every object lists all its properties as required and allows no others, which is what
 * OpenAI's strict mode and the local grammar both take.
 */

const text = { type: 'string' } as const;

/** The plan graph: nodes with id, question, parents and whether they compute; the final node's id. */
export function planReply(maxNodes: number): OutputConstraint {
  return {
    kind: 'json',
    name: 'plan_graph',
    schema: {
      type: 'object',
      properties: {
        nodes: {
          type: 'array',
          minItems: 1,
          maxItems: Math.max(1, maxNodes),
          items: {
            type: 'object',
            properties: { id: text, question: text, parents: { type: 'array', items: text }, compute: { type: 'boolean' } },
            required: ['id', 'question', 'parents', 'compute'],
            additionalProperties: false,
          },
        },
        final: text,
      },
      required: ['nodes', 'final'],
      additionalProperties: false,
    },
  };
}

/** A scalar, or a list of scalars: what a child's question can cite (see `tagText`). */
const answerValue = { anyOf: [text, { type: 'number' }, { type: 'boolean' }, { type: 'array', items: { anyOf: [text, { type: 'number' }] } }] } as const;

/** A node's answer `{"answer": …, "explanation": "…"}` (read by `readNodeAnswer`). */
export const nodeAnswerReply: OutputConstraint = {
  kind: 'json',
  name: 'node_answer',
  schema: { type: 'object', properties: { answer: answerValue, explanation: text }, required: ['answer', 'explanation'], additionalProperties: false },
};

/** The final node's `{"decision": "…", "rationale": "…"}` (read by `readDecision`). */
export const decisionReply: OutputConstraint = {
  kind: 'json',
  name: 'decision',
  schema: { type: 'object', properties: { decision: text, rationale: text }, required: ['decision', 'rationale'], additionalProperties: false },
};

/**
 * One step of a ReAct node (Plan*-IterRAG): `{"action": "query", "query": "…"}` to see a result,
 * or `{"action": "answer", …}` with the node's answer (the final node's decision). One object
 * with every field, since strict mode takes no choice of objects at the root: the fields the
 * action does not use are left empty. Read by `readReactStep`.
 */
export function reactStepReply(final: boolean): OutputConstraint {
  const answer = final ? { decision: text, rationale: text } : { answer: answerValue, explanation: text };
  return {
    kind: 'json',
    name: 'react_step',
    schema: {
      type: 'object',
      properties: { action: { type: 'string', enum: ['query', 'answer'] }, query: text, ...answer },
      required: ['action', 'query', ...Object.keys(answer)],
      additionalProperties: false,
    },
  };
}

/**
 * A ReAct step as the node reads it: the query to run, or the answer's JSON (as the answer
 * readers take it). The schema's object first; else the plain-text form `Query: …` /
 * `Answer: {…}` of an endpoint that did not hold the reply to the schema.
 */
export function readReactStep(reply: string): { query: string } | { answer: string } {
  try {
    const json = JSON.parse(reply) as Record<string, unknown>;
    if (json && typeof json === 'object' && !Array.isArray(json)) {
      const { action, query, ...answer } = json;
      if (action === 'query' && typeof query === 'string' && query.trim()) return { query: query.trim() };
      if (action === 'answer') return { answer: JSON.stringify(answer) };
      // The answer's JSON alone, as a model that ignores the step form may write it.
      if (action === undefined && ('answer' in answer || 'decision' in answer)) return { answer: reply };
    }
  } catch {
    // not the schema's object: the plain-text form below
  }
  const answer = /(?:^|\n)\s*Answer:\s*([\s\S]*)$/i.exec(reply);
  if (answer?.[1]) return { answer: answer[1] };
  return { query: reply };
}
