import type { Engine } from '../../../contract/data';
import type { ChatMessage } from '../../../llm/types';
import { dialectNotes } from '../../dialects';

/**
 * The prompts of Plan*RAG. The paper's prompt bodies (App. D) are lost from our copy, so these
 * are written from its description: the planner decomposes into a minimal DAG of atomic
 * sub-questions (D.1), the rewrite fills tags from the parents' answers (D.2), the generator
 * answers one node from its own evidence and its parents (D.3, Eq. 1). Every node prompt is
 * built from `NodeContext` and nothing else, so no sibling, grand-parent or trace can leak in.
 */
export interface RunBrief {
  question: string;
  rules: string;
  engine: Engine;
  schemaSummary: string;
}

/** Exactly what a node's calls may see. */
export interface NodeContext {
  id: string;
  /** The node's question with its tags filled. */
  question: string;
  parents: { id: string; question: string; answer: string }[];
  final: boolean;
}

const role = 'You are a careful decision analyst working on one part of a business decision question over a database. Never guess a number you can query.';

function database(brief: RunBrief): string {
  const dialect = dialectNotes[brief.engine];
  return `# Database\nEngine: ${dialect.label}. The connection is read-only.\n${dialect.notes}\n\n${brief.schemaSummary}`;
}

function task(brief: RunBrief): string {
  const rules = brief.rules.trim() ? `# Business rules\n${brief.rules.trim()}\n\n` : '';
  return `${rules}# Main question\n${brief.question.trim()}`;
}

function parentsSection(node: NodeContext): string {
  if (node.parents.length === 0) return '';
  return `\n\n# Answers this sub-question builds on\n${node.parents.map((parent) => `${parent.id}: ${parent.question}\nA${parent.id.slice(1)}: ${parent.answer}`).join('\n\n')}`;
}

function subQuestion(node: NodeContext): string {
  return `\n\n# Your sub-question (${node.id})\n${node.question}`;
}

export function plannerMessages(brief: RunBrief, maxNodes: number): ChatMessage[] {
  const system = [
    'You are a careful decision analyst. You plan how to answer a business decision question over a database; you do not answer it yet.',
    [
      '# Method (Plan*RAG)',
      'Decompose the main question into a minimal directed acyclic graph of atomic sub-questions. Atomic: one piece of information that one database query can return, or a computation over parent answers alone. Each sub-question may depend only on the answers of its parent nodes.',
      '- Node ids are Q{level}.{j}: level 1 for nodes that need no other answer, level d+1 for nodes whose parents reach level d; j numbers the nodes of a level from 1.',
      '- A question cites a parent\'s answer with the tag <A{level}.{j}>, e.g. "What is the local value of each node in <A1.1>?"; list every parent in "parents".',
      '- Nodes of the same level are answered at the same time, so put independent sub-questions on level 1.',
      '- Set "compute": true for a node answered from its parents\' answers alone, with no query (a comparison, a formula of the business rules).',
      '- Exactly one final node, last, decides the main question; name it in "final".',
      `- At most ${maxNodes} nodes.`,
    ].join('\n'),
    [
      '# Reply',
      'One JSON object and nothing else:',
      '{"nodes": [{"id": "Q1.1", "question": "…", "parents": []}, {"id": "Q2.1", "question": "… <A1.1> …", "parents": ["Q1.1"]}], "final": "Q2.1"}',
    ].join('\n'),
    [
      '# Examples',
      'Question: In what year was the coming-of-age novel by the author of Rumble Fish published by Viking Press?',
      '{"nodes": [{"id": "Q1.1", "question": "Who is the author of Rumble Fish?", "parents": []}, {"id": "Q2.1", "question": "What is the coming-of-age novel by <A1.1>?", "parents": ["Q1.1"]}, {"id": "Q3.1", "question": "In what year was <A2.1> published by Viking Press?", "parents": ["Q2.1"]}], "final": "Q3.1"}',
      'Question: Which store should get the new product line: the one with the highest revenue in the region with the most customers?',
      '{"nodes": [{"id": "Q1.1", "question": "Which region has the most customers?", "parents": []}, {"id": "Q1.2", "question": "What is the revenue of every store, with its region?", "parents": []}, {"id": "Q2.1", "question": "Which store of <A1.2> lies in <A1.1> and has the highest revenue?", "parents": ["Q1.1", "Q1.2"], "compute": true}], "final": "Q2.1"}',
    ].join('\n'),
    database(brief),
  ].join('\n\n');
  return [
    { role: 'system', content: system },
    { role: 'user', content: `${task(brief)}\n\nReply with the plan as one JSON object.` },
  ];
}

/** The repair turn [ext]: the planner sees why its plan could not be used. */
export function planRepair(error: string): string {
  return `That plan could not be used: ${error}. Reply with the corrected plan as one JSON object and nothing else.`;
}

/** Re-planning of the remaining graph [ext]: what was answered, what failed, and the ids that are free. */
export function replannerMessages(brief: RunBrief, maxNodes: number, done: { id: string; question: string; answer: string }[], failed: { id: string; question: string; problem: string }[], nextLevel: number): ChatMessage[] {
  const [system, user] = plannerMessages(brief, maxNodes) as [ChatMessage, ChatMessage];
  return [
    system,
    {
      role: 'user',
      content: [
        user.content,
        `# Answered so far (cite them with their tags; do not repeat them)\n${done.map((node) => `${node.id}: ${node.question}\nA${node.id.slice(1)}: ${node.answer}`).join('\n\n') || '(none)'}`,
        `# What went wrong\n${failed.map((node) => `${node.id}: ${node.question}\nProblem: ${node.problem}`).join('\n\n')}`,
        `Plan only the rest: new nodes with ids from level ${nextLevel} up (Q${nextLevel}.1, …), which may cite the answered nodes, ending in one final node that decides the main question. Reply with one JSON object.`,
      ].join('\n\n'),
    },
  ];
}

/** The paper's dynamic sub-query step (D.2): only the template and the parents' answers. */
export function rewriteMessages(template: string, answers: { id: string; answer: string }[]): ChatMessage[] {
  return [
    { role: 'system', content: 'You rewrite a templated question into a fluent, self-contained question by replacing each answer tag such as <A1.1> with the answer it stands for. Change nothing else. Reply with the question only.' },
    { role: 'user', content: `Template: ${template}\n\n${answers.map((answer) => `A${answer.id.slice(1)} = ${answer.answer}`).join('\n')}` },
  ];
}

export function queryMessages(brief: RunBrief, node: NodeContext): ChatMessage[] {
  const language = dialectNotes[brief.engine].label;
  return [
    { role: 'system', content: `${role}\n\n# Your job\nWrite ONE read-only ${language} query whose result answers your sub-question. Reply with the query only, in a fenced code block.\n\n${database(brief)}` },
    { role: 'user', content: `${task(brief)}${parentsSection(node)}${subQuestion(node)}` },
  ];
}

/** The query could not run: one correction [ext]. */
export function queryRepair(query: string, problem: string): ChatMessage[] {
  return [
    { role: 'assistant', content: `\`\`\`\n${query}\n\`\`\`` },
    { role: 'user', content: `The query could not run: ${problem}\nReply with a corrected query only, in a fenced code block.` },
  ];
}

/** The generator (D.3, Eq. 1): the main question, the rules, the schema, the node, its parents, its own result. */
export function answerMessages(brief: RunBrief, node: NodeContext, evidence: string | null): ChatMessage[] {
  const reply = node.final
    ? 'You answer the final sub-question, which decides the main question. Reply with one JSON object: {"decision": "<the chosen option exactly as the data names it, e.g. a node name or a building id>", "rationale": "<the evidence, citing the numbers>"}.'
    : 'Answer your sub-question from the evidence. Reply with one JSON object: {"answer": <a value, or a list of values, e.g. "krakow", 5.2, ["a", "b"]; an object only when the answer is a table>, "explanation": "<one sentence>"}.';
  const own = evidence === null ? '\n\n# Evidence\nNone: answer from the answers above.' : `\n\n# Evidence (your query's result)\n${evidence}`;
  return [
    { role: 'system', content: `${role}\n\n# Your job\n${reply}\n\n${database(brief)}` },
    { role: 'user', content: `${task(brief)}${parentsSection(node)}${subQuestion(node)}${own}` },
  ];
}

/** ReAct inside a node (Plan*-IterRAG): queries until it can answer, within a small budget. */
export function reactMessages(brief: RunBrief, node: NodeContext, queriesLeft: number): ChatMessage[] {
  const answer = node.final ? '{"decision": "…", "rationale": "…"}' : '{"answer": …, "explanation": "…"}';
  const language = dialectNotes[brief.engine].label;
  return [
    {
      role: 'system',
      content: `${role}\n\n# Your job\nAnswer your sub-question. Work step by step: reply either\nQuery:\n<one read-only ${language} query>\nto see its result, or, when the evidence suffices,\nAnswer:\n${answer}\nYou may run at most ${queriesLeft} queries.\n\n${database(brief)}`,
    },
    { role: 'user', content: `${task(brief)}${parentsSection(node)}${subQuestion(node)}` },
  ];
}

/** The query of a reply: the first fenced block, else the text after a `Query:` label, else the whole reply. */
export function readQuery(reply: string): string {
  const fenced = /```[a-zA-Z]*\s*\n?([\s\S]*?)```/.exec(reply);
  if (fenced?.[1]?.trim()) return fenced[1].trim();
  const labelled = /(?:^|\n)\s*Query:\s*([\s\S]*)$/i.exec(reply);
  return (labelled?.[1] ?? reply).trim();
}
