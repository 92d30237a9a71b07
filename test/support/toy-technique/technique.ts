import { z } from 'zod';
import { extensionOn, type RunExtension } from '../../../src-main/contract/fidelity';
import type { ChatMessage } from '../../../src-main/llm/types';
import { toolNamed } from '../../../src-main/engine/tools/registry';
import { declareOptions, type TechniqueDefinition } from '../../../src-main/engine/techniques/technique';
import { readTechniqueOptions } from '../../../src-main/engine/techniques/technique-options';
import { toolReplies } from '../../../src-main/engine/techniques/structured-replies';

/**
 * A technique in one folder, as a contributor would add one: its definition, its own options
 * (schema, CLI flag, the question it refuses, the variant results name), and a trivial run —
 * one answer turn that tells the model which end of the candidate list the options ask for.
 * Nothing in src-main names it; a test registers it (the registry's one line, at run time).
 */
export const toyOptionsSchema = z.strictObject({
  /** Which candidate the model is asked to pick. */
  pick: z.enum(['first', 'last']).default('first'),
  /** How many candidates the question must list; a question listing fewer is refused before the run. */
  atLeast: z.number().int().min(1).max(9).default(2),
});

/** What its one record (`toy-pick.candidates`) holds. */
const toyRecordSchema = z.object({ pick: z.enum(['first', 'last']), candidates: z.array(z.string()) });

/** Its one product extension, declared in its folder: the prompt says the list keeps the question's order (off at paper fidelity). */
export const toyOrderNote = {
  id: 'toy-order-note',
  label: 'Toy pick: says the list is in the question’s order',
  adds: 'The prompt says the candidates are listed in the order the question gives them.',
  paperInstead: 'The candidates only.',
  paper: false,
  product: true,
} as const satisfies RunExtension;

export const toyTechnique: TechniqueDefinition = {
  id: 'toy-pick',
  label: 'Toy pick',
  summary: 'Asks the model once for the first or last candidate the question lists.',
  method: '# Method\nAnswer with the candidate you are told to pick.',
  options: declareOptions<z.infer<typeof toyOptionsSchema>>({
    schema: toyOptionsSchema,
    flags: [
      { name: 'pick', value: 'first|last', description: 'Which listed candidate to pick.' },
      { name: 'at-least', value: 'N', description: 'Candidates the question must list.' },
    ],
    fromFlags: (values) => ({ ...(values['pick'] !== undefined ? { pick: values['pick'] } : {}), ...(values['at-least'] !== undefined ? { atLeast: Number(values['at-least']) } : {}) }),
    flagOf: (field) => ({ pick: '--pick', atLeast: '--at-least' })[field],
    optionsProblem: (question, options) => (candidatesOf(question).length >= options.atLeast ? null : `Toy pick needs at least ${options.atLeast} candidates on a "Candidates:" line`),
    variantLabel: (options) => `pick ${options.pick}`,
  }),
  extensions: [toyOrderNote],
  // Its one structured reply: the answer tool.
  structuredReplies: toolReplies([toolNamed('answer')]),
  // It never stops for the analyst: one answer turn, no query.
  reviews: [],
  // Its own records (`toy-pick.*` tool events) become observation cells that keep their input.
  cells: { toolPrefixes: ['toy-pick.'] },
  // Its record in a report: its own label and a table of the candidates, and a section of its own naming the pick.
  reports: {
    item: (fields) => {
      const input = toyRecordSchema.safeParse(fields['input']);
      return fields['tool'] === 'toy-pick.candidates' && input.success ? { label: 'Toy pick · candidates', blocks: [{ kind: 'table', header: ['Order', 'Candidate'], rows: input.data.candidates.map((name, index) => [String(index + 1), name]) }] } : null;
    },
    sections: (records) => {
      const picks = records.flatMap((fields) => {
        const input = toyRecordSchema.safeParse(fields['input']);
        return input.success ? [input.data.pick] : [];
      });
      return picks.length ? [{ id: 'toy-pick', title: 'Which end of the list Toy pick took', blocks: [{ kind: 'paragraph', text: `The ${picks.join(', ')} listed candidate.` }] }] : [];
    },
  },
  run: async (run) => {
    const options = readTechniqueOptions(toyOptionsSchema, run.options.techniqueOptions, 'Toy pick');
    const candidates = candidatesOf(run.options.question);
    run.emit({ type: 'tool', step: run.state.steps, tool: 'toy-pick.candidates', input: { pick: options.pick, candidates }, output: `Candidates: ${candidates.join(', ')}` });
    const note = extensionOn(run.options.fidelity, toyOrderNote) ? ' (in the order the question lists them)' : '';
    const messages: ChatMessage[] = [{ role: 'user', content: `Answer with the ${options.pick} of these candidates${note}: ${candidates.join(', ')}` }];
    const turn = await run.turn(messages, [toolNamed('answer')]);
    if ('end' in turn) return turn.end;
    return (await run.perform(messages, turn)) ?? run.finish('failed', 'the model gave no answer');
  },
};

function candidatesOf(question: string): string[] {
  const line = /^\s*candidates\s*:\s*(.+)$/im.exec(question)?.[1] ?? '';
  return line.split(',').map((item) => item.trim()).filter(Boolean);
}
