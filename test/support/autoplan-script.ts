/**
 * A scripted model for AutoPlan training over DQA questions: every request is classified by
 * what it asks (thought, action, formalizer, summary, flaws, revision, playbook update) and
 * answered for the question its conversation is about, so the answers do not depend on the
 * order of the requests.
 */
import { dqaQuestionText } from '../../src-main/benchmark/dqa-question-text';
import type { DqaQuestion } from './dqa-technique-model';
import { messageText, type ReceivedChatRequest, type ScriptStep, type ScriptedTurn } from './scripted-openai/script';

export type AutoplanPurpose = 'thought' | 'action' | 'formalizer' | 'summary' | 'flaws' | 'revision' | 'update';

export function purposeOf(request: { chat: { messages: { role: string; content?: unknown }[] } }): AutoplanPurpose {
  const messages = (request as ReceivedChatRequest).chat.messages;
  const system = messages[0] ? messageText(messages[0]) : '';
  if (system.startsWith('Rewrite an agent')) return 'formalizer';
  if (system.startsWith('You write playbooks')) return 'update';
  const last = messages.at(-1);
  const text = last ? messageText(last) : '';
  // Consecutive user messages may arrive merged: the request's own prompt is the last line.
  const prompt = text.split('\n').at(-1) ?? '';
  if (prompt.startsWith('Thought:')) return 'thought';
  if (prompt.startsWith('Action:')) return 'action';
  if (text.includes('Summarize the interaction')) return 'summary';
  if (prompt.startsWith('Identify every flawed')) return 'flaws';
  if (prompt.startsWith('Suggest a revision')) return 'revision';
  throw new Error(`unclassified request: ${text.slice(0, 80)}`);
}

export function questionIdOf(request: ReceivedChatRequest, questions: readonly DqaQuestion[]): string {
  const first = request.chat.messages.find((message) => message.role === 'user');
  const asked = (first ? messageText(first) : '').split('# Question\n')[1]?.trim() ?? '';
  // The question may be followed by a merged prompt; the longest matching question wins.
  const question = questions
    .filter((candidate) => asked === dqaQuestionText(candidate) || asked.startsWith(`${dqaQuestionText(candidate)}\n`))
    .sort((a, b) => dqaQuestionText(b).length - dqaQuestionText(a).length)[0];
  if (!question) throw new Error(`request ${request.index} asks no known question`);
  return question.id;
}

export interface AutoplanBehaviour {
  questions: readonly DqaQuestion[];
  /** The decision each question finishes with. */
  answers: ReadonlyMap<string, string>;
  /** The update call's replies, in order. */
  playbooks: readonly string[];
}

export function autoplanScript(behaviour: AutoplanBehaviour, turns = 400): ScriptStep[] {
  let updates = 0;
  const respond = (request: ReceivedChatRequest): ScriptedTurn => {
    const purpose = purposeOf(request);
    if (purpose === 'update') return { content: behaviour.playbooks[updates++] ?? 'no more playbooks scripted' };
    if (purpose === 'formalizer') {
      const raw = messageText(request.chat.messages.at(-1) ?? { role: 'user', content: '' });
      const sql = /run (SELECT .*?) to /.exec(raw)?.[1] ?? 'SELECT 1';
      return { content: `Query[${sql}]\nQuery[SELECT 2]` };
    }
    const id = questionIdOf(request, behaviour.questions);
    const hasPlaybook = messageText(request.chat.messages[1] ?? { role: 'user', content: '' }).includes('# Playbook');
    const actions = request.chat.messages.filter((message) => message.role === 'assistant' && messageText(message).startsWith('Action:')).length;
    switch (purpose) {
      case 'thought':
        return { content: hasPlaybook ? `Step ${actions + 1}: follow the playbook for ${id}\nextra line dropped` : `I should look at the data for ${id}` };
      case 'action':
        // The first action is free-form (the formalizer call), the second already valid (fast path).
        return { content: actions === 0 ? `I will run SELECT '${id}' AS question, count(*) AS nodes FROM trade_node to count the nodes` : `Finish[${behaviour.answers.get(id) ?? 'nowhere'}]` };
      case 'summary':
        return { content: `Summary of ${id}` };
      case 'flaws':
        return { content: `Flaws of ${id}` };
      default:
        return { content: `Revision of ${id}` };
    }
  };
  return Array.from({ length: turns }, () => respond);
}
