import { z } from 'zod';
import { defineTool } from '../../tools/tool';

/**
 * The two replies only Pearl asks for. They are offered by the technique itself, not listed in
 * the shared tool registry: the technique reads their arguments and records what follows as its
 * own events (`tool` events named `pearl-…`), so they are never performed by the executor.
 */
export const programTool = defineTool({
  name: 'program',
  arguments: z.object({ program: z.string().trim().min(1) }),
  description: () => 'Give the whole analysis program: the "New actions:" block, a blank line, then the numbered steps.',
  textForm: 'Program:\nNew actions:\n- None\n\n1. out1 = ACTION(arguments) : what this step finds\n2. out2 = ACTION(arguments) : …',
  textSections: ['Program'],
  fromText: (reply) => {
    const body = reply.section('program');
    if (body === undefined) return undefined;
    // A "Plan:" line inside the program starts a section of its own in the text protocol: join it back.
    const plan = reply.section('plan');
    return { program: plan === undefined ? body : `${body}\n\n${plan}` };
  },
  perform: () => Promise.resolve({ reply: 'Program received.' }),
});

export const stepOutputTool = defineTool({
  name: 'output',
  arguments: z.object({ output: z.string().trim().min(1) }),
  description: () => "Give this step's output: the result in full, for the steps that use it.",
  textForm: "Output:\n<the step's result in full>",
  textSections: ['Output'],
  fromText: (reply) => {
    const body = reply.section('output');
    return body === undefined ? undefined : { output: body.trim() };
  },
  perform: () => Promise.resolve({ reply: 'Output recorded.' }),
});
