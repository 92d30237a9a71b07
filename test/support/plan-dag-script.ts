import type { ReceivedChatRequest, ScriptedTurn } from './scripted-openai';
import { messageText } from './scripted-openai';

/**
 * Scripted turns for Plan*RAG runs. Nodes of a level ask at the same time, so each turn says
 * which call it answers by what that call's prompt holds (`when`): the planner's request, or a
 * node's query, answer, rewrite or ReAct call, recognised by the node id and the job.
 */
const jobs = {
  query: 'Write ONE read-only',
  answer: 'Answer your sub-question from the evidence',
  decide: 'You answer the final sub-question',
  react: 'Work step by step: reply either',
} as const;

/** The demo Locating question's plan: three roots (flows, SWE's power, krakow's value) and the join that decides. */
export const locatingPlan = {
  nodes: [
    { id: 'Q1.1', question: 'Which trade nodes have a flow into baltic_sea?', parents: [] },
    { id: 'Q1.2', question: "What is SWE's base trading power at each trade node?", parents: [] },
    { id: 'Q1.3', question: 'What is the local value of krakow?', parents: [] },
    { id: 'Q2.1', question: 'Of the nodes in <A1.1>, where should SWE place its merchant, given its power <A1.2> and the value <A1.3>?', parents: ['Q1.1', 'Q1.2', 'Q1.3'], compute: true },
  ],
  final: 'Q2.1',
};

export function plannerTurn(plan: unknown, extra: ScriptedTurn = {}): ScriptedTurn {
  return { label: 'plan', when: 'Reply with the plan as one JSON object.', content: typeof plan === 'string' ? plan : JSON.stringify(plan), ...extra };
}

/** A node's call: `job` picks the kind of call, `id` the node (its prompt names `# Your sub-question (Q1.1)`). */
export function nodeTurn(id: string, job: keyof typeof jobs, content: string | Record<string, unknown>, extra: ScriptedTurn = {}): ScriptedTurn {
  return {
    label: `${id} ${job}`,
    when: [`# Your sub-question (${id})`, jobs[job]],
    content: typeof content === 'string' ? content : JSON.stringify(content),
    ...extra,
  };
}

export function queryTurn(id: string, query: string, extra: ScriptedTurn = {}): ScriptedTurn {
  return nodeTurn(id, 'query', `\`\`\`sql\n${query}\n\`\`\``, extra);
}

/** The whole text a request sent (every message), for context checks. */
export function promptOf(request: ReceivedChatRequest): string {
  return request.chat.messages.map(messageText).join('\n');
}

/** The node a request worked for, read from its prompt; null for the planner and shared calls. */
export function nodeOf(request: ReceivedChatRequest): string | null {
  return /# Your sub-question \((Q\d+\.\d+)\)/.exec(promptOf(request))?.[1] ?? null;
}

/** The most requests that were in flight at once, from the server's receive and answer times. */
export function maxInFlight(requests: readonly ReceivedChatRequest[]): number {
  const edges = requests.flatMap((request) => [
    { at: request.receivedAt, change: 1 },
    { at: request.answeredAt ?? Number.POSITIVE_INFINITY, change: -1 },
  ]);
  // An answer and a new request in the same millisecond: count the answer first.
  edges.sort((a, b) => a.at - b.at || a.change - b.change);
  let current = 0;
  let most = 0;
  for (const edge of edges) {
    current += edge.change;
    most = Math.max(most, current);
  }
  return most;
}
