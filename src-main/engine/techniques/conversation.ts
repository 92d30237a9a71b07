import { extensionOn } from '../../contract/fidelity';
import type { RunContext, RunOutcome } from '../run-context';
import { toolNamed } from '../tools/registry';
import type { ToolDefinition } from '../tools/tool';
import { toolReplies } from './structured-replies';
import type { TechniqueDefinition } from './technique';

/** How a one-conversation technique offers its tools (PlanRAG, NAACL 2024, and its baselines). */
export interface ConversationRules {
  /** The model must lay out a plan before its first query. */
  plansFirst: boolean;
  /** The model may revise its plan after an observation. */
  replans: boolean;
  /** Queries allowed before only `answer` remains; null for no limit beyond the step limit. */
  queryLimit: number | null;
}

/**
 * Tools on offer at a given point of a run; `simulate` only where a simulator fits the data,
 * `whatif` only where the data can be copied into a sandbox. Both are experiments rather than
 * retrieval, so they stay available when a technique's query budget is spent.
 */
export function toolsOffered(rules: ConversationRules, state: { planned: boolean; queries: number; canSimulate?: boolean; canWhatIf?: boolean }): string[] {
  if (rules.plansFirst && !state.planned) return ['plan'];
  const queriesLeft = rules.queryLimit === null || state.queries < rules.queryLimit;
  return [
    ...(queriesLeft ? ['query'] : []),
    ...(rules.replans ? ['replan'] : []),
    ...(state.canSimulate ? ['simulate'] : []),
    ...(state.canWhatIf ? ['whatif'] : []),
    'answer',
  ];
}

/** The tools a conversation with these rules can offer at some point of a run. */
function conversationTools(rules: ConversationRules): string[] {
  return [...(rules.plansFirst ? ['plan'] : []), 'query', ...(rules.replans ? ['replan'] : []), 'simulate', 'whatif', 'answer'];
}

/**
 * A technique that is one conversation: the model is asked, its calls are carried out and
 * answered in the same conversation, until it answers or a limit ends the run.
 */
export function conversationTechnique(definition: Omit<TechniqueDefinition, 'run' | 'structuredReplies' | 'reviews'> & { rules: ConversationRules }): TechniqueDefinition & { rules: ConversationRules } {
  return {
    // Every tool its rules can offer: plan and replan only where the rules have them.
    structuredReplies: toolReplies(conversationTools(definition.rules).map(toolNamed)),
    // The stops its tools make (a query, a re-plan), for the tools its rules can offer.
    reviews: conversationTools(definition.rules).flatMap((name) => toolNamed(name).reviews ?? []),
    // The conversation offers the simulate and what-if tools, so those shared extensions concern it.
    sharedExtensions: ['simulate-tool', 'whatif-tool'],
    ...definition,
    run: async (run: RunContext): Promise<RunOutcome> => {
      const messages = await run.openConversation();
      if (!Array.isArray(messages)) return messages;
      if (run.options.resume) run.emit({ type: 'run-resume', step: run.state.steps + 1, messageCount: messages.length });
      for (;;) {
        const limit = run.limitReached();
        if (limit) return limit;
        const offered: ToolDefinition[] = toolsOffered(definition.rules, {
          ...run.state,
          // Both are product extensions: at paper fidelity the model is offered neither.
          canSimulate: run.options.simulator !== undefined && extensionOn(run.options.fidelity, 'simulate-tool'),
          canWhatIf: run.options.whatIf !== undefined && extensionOn(run.options.fidelity, 'whatif-tool'),
        }).map(toolNamed);
        const turn = await run.turn(messages, offered);
        if ('end' in turn) return turn.end;
        if (turn.calls.length === 0) continue; // repaired: ask again
        const ended = await run.perform(messages, turn);
        if (ended) return ended;
      }
    },
  };
}
