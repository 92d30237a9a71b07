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
