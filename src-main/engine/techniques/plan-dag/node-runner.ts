import type { ChatMessage } from '../../../llm/types';
import { analystNote, recordReview } from '../../review-gate';
import type { RunContext } from '../../run-context';
import { runQuery } from '../../tools/query';
import { readDecision, readNodeAnswer, substituteTags, answerText, type NodeAnswer } from './answers';
import type { DagNode } from './plan-graph';
import { answerMessages, queryMessages, queryRepair, reactMessages, readQuery, rewriteMessages, type NodeContext, type RunBrief } from './prompts';
import { decisionReply, nodeAnswerReply, reactStepReply, readReactStep } from './reply-schemas';

/** How a node finds its evidence: its own query (SubQ, default), one shared result (Base), or ReAct inside the node. */
export type Retrieval = 'per-node' | 'shared' | 'react';

export interface NodeSettings {
  retrieval: Retrieval;
  /** `strict` [ext]: tags filled deterministically where the answer is a value or a list; `faithful`: the paper's LLM rewrite. */
  substitution: 'strict' | 'faithful';
  /** Corrections of a query that could not run [ext]. */
  queryRepairs: number;
  /** Queries a ReAct node may run. */
  reactQueries: number;
}

/** One model call of a node, as the run log and the benchmark count it. */
export interface NodeCall {
  purpose: string;
  step: number;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
}

/** The error categories of DQA's analysis (PlanRAG paper): query error, anything else. */
export type FailureCategory = 'QUR' | 'OTH';

export interface NodeResult {
  id: string;
  status: 'answered' | 'failed';
  /** The question with its tags filled, as the node's calls saw it. */
  question: string;
  answer: NodeAnswer | null;
  /** The final node's decision. */
  decision: { decision: string; rationale: string } | null;
  failure: { category: FailureCategory; message: string } | null;
  /** The node's query returned no rows (or was skipped): a re-plan [ext] may want to know. */
  empty: boolean;
  calls: NodeCall[];
  startedAt: number;
  endedAt: number;
}

/** The run must end (stopped, cancelled, out of time or steps): thrown through the node, caught by the technique. */
export class RunEnding extends Error {
  constructor(
    readonly status: 'cancelled' | 'time-limit' | 'step-limit' | 'token-limit' | 'stopped',
    message: string,
  ) {
    super(message);
  }
}

class NodeFailure extends Error {
  constructor(
    readonly category: FailureCategory,
    message: string,
  ) {
    super(message);
  }
}

/**
 * What a node is given: its plan node, its parents' questions and answers, and, in Base, the
 * shared result. A parent's question is its template as planned (tags unfilled): filled in, it
 * would carry the grand-parents' answers, and the node's context would grow with the depth.
 */
export interface NodeInput {
  node: DagNode;
  final: boolean;
  parents: { id: string; question: string; answer: NodeAnswer }[];
  sharedEvidence: string | null;
}

/**
 * Runs one node: fills its tags, finds its evidence, answers. Its calls see the main question,
 * the rules, the schema, the node's question and its parents' questions and answers, and its
 * own evidence — built from `NodeInput` alone. Never throws for the model's or the data's
 * mistakes (they make the node failed, with a category); throws `RunEnding` when the run must stop.
 */
export async function runNode(run: RunContext, brief: RunBrief, input: NodeInput, settings: NodeSettings): Promise<NodeResult> {
  const { node } = input;
  const calls: NodeCall[] = [];
  const startedAt = performance.now();
  const result = (fields: Partial<NodeResult> & Pick<NodeResult, 'status' | 'question'>): NodeResult => ({
    id: node.id,
    answer: null,
    decision: null,
    failure: null,
    empty: false,
    calls,
    startedAt,
    endedAt: performance.now(),
    ...fields,
  });
  const ask = async (messages: ChatMessage[], purpose: string): Promise<{ content: string; step: number }> => {
    const over = run.overLimit();
    if (over) throw new RunEnding(over.status as RunEnding['status'], over.message);
    // A node's JSON replies are asked for with their schemas: its answer (the final node's decision) and each ReAct step.
    const output = purpose === 'answer' ? (input.final ? decisionReply : nodeAnswerReply) : purpose === 'react' ? reactStepReply(input.final) : undefined;
    const asked = await run.ask({ messages, ...(output ? { output } : {}) }, { node: node.id, purpose });
    if ('failure' in asked) {
      if (asked.failure === 'failed') throw new NodeFailure('OTH', asked.message);
      throw new RunEnding(asked.failure, asked.message);
    }
    const usage = asked.response.usage;
    calls.push({ purpose, step: asked.step, promptTokens: usage?.promptTokens ?? 0, completionTokens: usage?.completionTokens ?? 0, latencyMs: asked.response.latencyMs });
    return { content: asked.response.content, step: asked.step };
  };

  let question = node.question;
  try {
    question = await resolveQuestion(input, settings, ask);
    const context: NodeContext = {
      id: node.id,
      question,
      parents: input.parents.map((parent) => ({ id: parent.id, question: parent.question, answer: answerText(parent.answer) })),
      final: input.final,
    };
    let evidence: string | null = null;
    let empty = false;
    let reply: string;
    if (node.compute) {
      reply = (await ask(answerMessages(brief, context, null), 'answer')).content;
    } else if (settings.retrieval === 'shared') {
      evidence = input.sharedEvidence;
      reply = (await ask(answerMessages(brief, context, evidence), 'answer')).content;
    } else if (settings.retrieval === 'react') {
      const reacted = await react(run, brief, context, settings.reactQueries, ask);
      reply = reacted.reply;
      empty = reacted.empty;
    } else {
      const found = await queryOnce(run, brief, context, settings.queryRepairs, ask);
      evidence = found.evidence;
      empty = found.empty;
      reply = (await ask(answerMessages(brief, context, evidence), 'answer')).content;
    }
    if (input.final) {
      const decision = readDecision(reply);
      if (!decision) throw new NodeFailure('OTH', 'the final node named no decision ({"decision": …} was expected)');
      return result({ status: 'answered', question, decision, answer: { value: decision.decision, explanation: decision.rationale }, empty });
    }
    return result({ status: 'answered', question, answer: readNodeAnswer(reply), empty });
  } catch (error) {
    if (error instanceof NodeFailure) return result({ status: 'failed', question, failure: { category: error.category, message: error.message } });
    throw error;
  }
}

type Ask = (messages: ChatMessage[], purpose: string) => Promise<{ content: string; step: number }>;

/** Fills the tags: deterministically in strict mode when every cited answer is a value or a list; otherwise the paper's rewrite call. */
async function resolveQuestion(input: NodeInput, settings: NodeSettings, ask: Ask): Promise<string> {
  const { node } = input;
  const answers = new Map(input.parents.map((parent) => [parent.id, parent.answer]));
  const strict = substituteTags(node.question, answers);
  if ('question' in strict && (settings.substitution === 'strict' || strict.question === node.question)) return strict.question;
  const cited = input.parents.map((parent) => ({ id: parent.id, answer: answerText(parent.answer) }));
  const rewritten = (await ask(rewriteMessages(node.question, cited), 'rewrite')).content.trim();
  if (!rewritten) throw new NodeFailure('OTH', 'the rewrite of the sub-question came back empty');
  return rewritten;
}

/** Writes the node's query, runs it (a review point in step-through), and corrects it a bounded number of times. */
async function queryOnce(run: RunContext, brief: RunBrief, context: NodeContext, repairs: number, ask: Ask): Promise<{ evidence: string; empty: boolean }> {
  const messages = queryMessages(brief, context);
  for (let attempt = 0; ; attempt++) {
    const written = await ask(messages, attempt === 0 ? 'query' : 'query-repair');
    const query = readQuery(written.content);
    const ran = await reviewedQuery(run, context, written.step, query);
    if (ran.ok) return { evidence: ran.text, empty: ran.empty };
    if (attempt >= repairs) throw new NodeFailure('QUR', `the query could not run: ${ran.text}`);
    messages.push(...queryRepair(query, ran.text));
  }
}

/** ReAct inside a node (Plan*-IterRAG): `Query:` replies are run and answered, until `Answer:` or the budget. */
async function react(run: RunContext, brief: RunBrief, context: NodeContext, budget: number, ask: Ask): Promise<{ reply: string; empty: boolean }> {
  const messages = reactMessages(brief, context, budget);
  let ran = 0;
  let anyRows = false;
  for (;;) {
    const turn = await ask(messages, 'react');
    const step = readReactStep(turn.content);
    if ('answer' in step) return { reply: step.answer, empty: !anyRows };
    messages.push({ role: 'assistant', content: turn.content });
    if (ran >= budget) {
      messages.push({ role: 'user', content: 'No queries are left. Reply with your answer now.' });
      const last = readReactStep((await ask(messages, 'react')).content);
      return { reply: 'answer' in last ? last.answer : last.query, empty: !anyRows };
    }
    const outcome = await reviewedQuery(run, context, turn.step, readQuery(step.query));
    ran++;
    anyRows ||= outcome.ok && !outcome.empty;
    messages.push({ role: 'user', content: `Observation:\n${outcome.text}` });
  }
}

/** One query of a node through the review gate (with the node's resolved question, so the analyst sees what it is for) and the read-only connector. */
async function reviewedQuery(run: RunContext, context: NodeContext, step: number, query: string): Promise<{ ok: boolean; text: string; empty: boolean }> {
  const { gate } = run.options;
  const asked = gate.interactive;
  const node = context.id;
  // Nodes of a level may wait at once (the analyst paused mid-level): each review is its own, by step and node.
  const decision = await gate.review({ subject: 'query', step, node, question: context.question, query }, run.signal);
  if (asked) recordReview(run, { step, node }, 'query', query, decision);
  if (decision.action === 'stop') throw new RunEnding('stopped', 'The analyst stopped the run to continue by hand');
  if (decision.action === 'skip') {
    run.emit({ type: 'observation', step, node, queryId: null, text: 'Skipped by the analyst.' });
    return { ok: true, text: `Skipped by the analyst${decision.note ? `: ${decision.note}` : ''}; no result.`, empty: true };
  }
  const edited = decision.action === 'edit' && decision.query?.trim() ? decision.query.trim() : null;
  const ran = await runQuery(run.toolContext(), { step, node, query: edited ?? query, author: edited ? 'analyst' : 'model' });
  run.applyStateChanges({ ...ran.stateChanges, queries: 1 });
  const note = analystNote(decision);
  return { ok: ran.error === null, text: `${ran.text}${note ? `\n\nAnalyst note: ${note}` : ''}`, empty: ran.error === null && ran.rowCount === 0 };
}
