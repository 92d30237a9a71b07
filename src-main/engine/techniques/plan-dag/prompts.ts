import type { Engine } from '../../../contract/data';
import type { ChatMessage } from '../../../llm/types';
import { dialectNotes } from '../../dialects';

/**
 * The prompts of Plan*RAG, in the project's own words with its own invented examples (never the
 * paper's text, and never a name from the data: test/unit/engine/prompt-example-names.test.ts),
 * following the paper's description: the planner decomposes into a minimal DAG of atomic
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
  // Written for this project (not the paper's text): the rules say what a node is, how ids and
  // tags work and what may run at once; the examples are invented business questions.
  const system = [
    'You are a careful decision analyst. Your job here is only to plan: split a business decision question about a database into small sub-questions. Do not answer anything yet.',
    [
      '# Method (Plan*RAG)',
      'Lay the question out as a graph of sub-questions with no cycles, as few as the question needs. Each sub-question asks for one thing: either what a single database query can return, or a calculation made only from the answers it builds on. A sub-question may use the answers of the nodes it lists as parents, and nothing else.',
      '- Name each node Q{level}.{j}. Level 1 is for nodes that build on no other answer; a node one level above its highest parent goes on that next level. j counts the nodes of one level from 1.',
      '- Refer to a parent\'s answer inside a question with its tag <A{level}.{j}>, for instance "Which suppliers deliver to <A1.1>?", and list every parent you refer to in "parents".',
      '- All nodes of one level are worked on together, so questions that do not depend on each other belong on level 1.',
      '- Mark a node with "compute": true when it needs no query because its parents\' answers are enough (comparing them, or applying a formula from the business rules).',
      '- The last node is the only final node: its answer is the decision. Give its id as "final".',
      `- At most ${maxNodes} nodes.`,
    ].join('\n'),
    [
      '# Reply',
      'Only one JSON object, with nothing before or after it:',
      '{"nodes": [{"id": "Q1.1", "question": "…", "parents": []}, {"id": "Q2.1", "question": "… <A1.1> …", "parents": ["Q1.1"]}], "final": "Q2.1"}',
    ].join('\n'),
    [
      '# Examples (invented; they show the form, not your data)',
      'Question: Which supplier should we reorder part K-17 from: the cheapest of those delivering to the depot that holds the least of it?',
      '{"nodes": [{"id": "Q1.1", "question": "Which depot holds the smallest stock of part K-17?", "parents": []}, {"id": "Q2.1", "question": "Which suppliers deliver part K-17 to <A1.1>, and at what unit price?", "parents": ["Q1.1"]}, {"id": "Q3.1", "question": "Which supplier of <A2.1> has the lowest unit price?", "parents": ["Q2.1"], "compute": true}], "final": "Q3.1"}',
      'Question: Which clinic should get the extra nurse: the one with the most visits in the district that has the fewest nurses per patient?',
      '{"nodes": [{"id": "Q1.1", "question": "How many nurses and how many patients does each district have?", "parents": []}, {"id": "Q1.2", "question": "How many visits did each clinic have last month, and in which district is it?", "parents": []}, {"id": "Q2.1", "question": "Which district of <A1.1> has the fewest nurses per patient?", "parents": ["Q1.1"], "compute": true}, {"id": "Q3.1", "question": "Which clinic of <A1.2> lies in <A2.1> and had the most visits?", "parents": ["Q1.2", "Q2.1"], "compute": true}], "final": "Q3.1"}',
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
    ? 'You answer the final sub-question, which decides the main question. Reply with one JSON object: {"decision": "<the chosen option exactly as the data names it, e.g. a name or an id from the data>", "rationale": "<the evidence, citing the numbers>"}.'
    : 'Answer your sub-question from the evidence. Reply with one JSON object: {"answer": <a value, or a list of values, e.g. "depot_north", 5.2, ["a", "b"]; an object only when the answer is a table>, "explanation": "<one sentence>"}.';
  const own = evidence === null ? '\n\n# Evidence\nNone: answer from the answers above.' : `\n\n# Evidence (your query's result)\n${evidence}`;
  return [
    { role: 'system', content: `${role}\n\n# Your job\n${reply}\n\n${database(brief)}` },
    { role: 'user', content: `${task(brief)}${parentsSection(node)}${subQuestion(node)}${own}` },
  ];
}

/** ReAct inside a node (Plan*-IterRAG): queries until it can answer, within a small budget. */
export function reactMessages(brief: RunBrief, node: NodeContext, queriesLeft: number): ChatMessage[] {
  const answer = node.final ? '"decision": "…", "rationale": "…"' : '"answer": …, "explanation": "…"';
  const unused = node.final ? '"decision": "", "rationale": ""' : '"answer": "", "explanation": ""';
  const language = dialectNotes[brief.engine].label;
  return [
    {
      role: 'system',
      content: `${role}\n\n# Your job\nAnswer your sub-question. Work step by step: reply either\n{"action": "query", "query": "<one read-only ${language} query>", ${unused}}\nto see its result, or, when the evidence suffices,\n{"action": "answer", "query": "", ${answer}}\nYou may run at most ${queriesLeft} queries.\n\n${database(brief)}`,
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
