import { describe, expect, it } from 'vitest';
import { formatProgramError, parseProgram, programNodes, sinkSteps, type ProgramError } from '../../../../src-main/engine/techniques/pearl/program';
import { actionLine, readActionLibrary, seedLibrary, signaturesOf } from '../../../../src-main/engine/techniques/pearl/library';

const library = signaturesOf(seedLibrary());

function errorsOf(text: string): ProgramError[] {
  const result = parseProgram(text, library);
  if (result.ok) throw new Error('expected the program to be refused');
  return result.errors;
}

const valid = [
  'New actions:',
  '- None',
  '',
  '1. out1 = LOOKUP(DB, "baltic_sea", "local_value, ingoing (both)") : the home node values',
  '2. out2 = NEIGHBORS(DB, "baltic_sea", "source", "in") : nodes that feed the home node',
  '3. out3 = COMPARE(out1, out2, "flow") : which matters more',
  '4. out4 = CONCAT(out2, out3) : the answer',
].join('\n');

describe('the Pearl program parser', () => {
  it('reads a valid program: quoted strings keep commas and parentheses, CONCAT takes any number, ids are the outputs', () => {
    const result = parseProgram(valid, library);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const [first] = result.program.steps;
    expect(first?.args).toEqual([{ kind: 'db' }, { kind: 'string', value: 'baltic_sea' }, { kind: 'string', value: 'local_value, ingoing (both)' }]);
    expect(result.program.steps.map((step) => step.id)).toEqual(['out1', 'out2', 'out3', 'out4']);
    expect(programNodes(result.program).map((node) => node.dependsOn)).toEqual([[], [], ['out1', 'out2'], ['out2', 'out3']]);
    expect(sinkSteps(result.program).map((step) => step.id)).toEqual(['out4']);
    const five = parseProgram('New actions:\n- None\n\n1. a = LOOKUP(DB, "x", "y") : a\n2. b = CONCAT(a, a, "z", a, a) : five', library);
    expect(five.ok).toBe(true);
  });

  it('keeps new actions local to the program and checks their arity; sinks are every unused output', () => {
    const text = 'New actions:\n- HOME_INFLOW(DB, node) : the value flowing into a node\n\n1. out1 = HOME_INFLOW(DB, "krakow") : inflow\n2. out2 = LOOKUP(DB, "krakow", "local_value") : values\n3. out3 = COMPARE(out1, "10", "size") : compare';
    const result = parseProgram(text, library);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.program.newActions).toMatchObject([{ name: 'HOME_INFLOW', params: ['DB', 'node'], definition: 'the value flowing into a node' }]);
    expect(sinkSteps(result.program).map((step) => step.id)).toEqual(['out2', 'out3']);
    // The same program without the definition: the action is unknown (it never entered the library).
    expect(errorsOf(text.replace('- HOME_INFLOW(DB, node) : the value flowing into a node', '- None'))[0]?.code).toBe('unknown-action');
  });

  it('accepts a fenced program, "Plan:" over the steps and "- None" on the header line', () => {
    expect(parseProgram('```\nNew actions: - None\n\nPlan:\n1. out1 = LOOKUP(DB, "a", "b") : x\n```', library).ok).toBe(true);
  });

  // One malformed program per error class of the paper (and ours), with its message and position.
  const cases: { code: ProgramError['code']; text: string; line: number; column: number; message: RegExp }[] = [
    { code: 'blocks', text: '1. out1 = LOOKUP(DB, "a", "b") : x', line: 1, column: 1, message: /two blocks separated by a blank line.*found one block/ },
    { code: 'blocks', text: 'New actions:\n- None\n\n1. out1 = LOOKUP(DB, "a", "b") : x\n\n2. out2 = CONCAT(out1) : y', line: 6, column: 1, message: /exactly two blocks.*found 3 blocks/ },
    { code: 'new-action', text: 'New actions:\n- FIND THE FLOW : flows\n\n1. out1 = LOOKUP(DB, "a", "b") : x', line: 2, column: 3, message: /a new action is written "- NAME\(ARG1, ARG2\) : one-sentence definition"/ },
    { code: 'new-action', text: 'New actions:\n- FLOWS(DB, node) :\n\n1. out1 = LOOKUP(DB, "a", "b") : x', line: 2, column: 3, message: /FLOWS needs a one-sentence definition/ },
    { code: 'numbering', text: 'New actions:\n- None\n\nout1 = LOOKUP(DB, "a", "b") : x', line: 4, column: 1, message: /starts with its number and a dot, "1\. name = ACTION/ },
    { code: 'numbering', text: 'New actions:\n- None\n\n1. out1 = LOOKUP(DB, "a", "b") : x\n3. out3 = CONCAT(out1) : y', line: 5, column: 1, message: /expected 2, found 3/ },
    { code: 'assignment', text: 'New actions:\n- None\n\n1. LOOKUP(DB, "a", "b") : x', line: 4, column: 4, message: /there is no "=" before the action/ },
    { code: 'call', text: 'New actions:\n- None\n\n1. out1 = LOOKUP(DB, "a", "b")', line: 4, column: 31, message: /comes ":" and a one-sentence description/ },
    { code: 'call', text: 'New actions:\n- None\n\n1. out1 = LOOKUP(DB, "a, b) : x', line: 4, column: 22, message: /quoted string is not closed/ },
    { code: 'call', text: 'New actions:\n- None\n\n1. out1 = LOOKUP(DB, NEIGHBORS(DB, "a", "b", "c"), "b") : x', line: 4, column: 31, message: /arguments cannot be calls/ },
    { code: 'unknown-action', text: 'New actions:\n- None\n\n1. out1 = FIND_FLOW(DB, "a") : x', line: 4, column: 11, message: /unknown action FIND_FLOW: use an action of the library \(LIST_CANDIDATES, LOOKUP/ },
    { code: 'arity', text: 'New actions:\n- None\n\n1. out1 = LOOKUP(DB, "a") : x', line: 4, column: 11, message: /LOOKUP\(DB, entity, attributes\) takes 3 arguments, found 2/ },
    { code: 'self-reference', text: 'New actions:\n- None\n\n1. out1 = LOOKUP(DB, "a", "b") : x\n2. out2 = COMPARE(out1, out2, "c") : y', line: 5, column: 25, message: /out2 is used as an argument of the step that defines it/ },
    { code: 'argument', text: 'New actions:\n- None\n\n1. out1 = LOOKUP(DB, "a", out7) : x', line: 4, column: 27, message: /out7 is neither DB, a quoted string nor an earlier output \(the outputs so far: none\)/ },
    { code: 'argument', text: 'New actions:\n- None\n\n1. out1 = COMPARE(out2, "a", "b") : x\n2. out2 = LOOKUP(DB, "a", "b") : y', line: 4, column: 19, message: /out2 is the output of step 2, which comes later/ },
    { code: 'argument', text: 'New actions:\n- None\n\n1. out1 = LOOKUP(DB, "baltic_sea", 5) : x', line: 4, column: 36, message: /argument "5" is neither DB, a quoted string nor an earlier output \(quote numbers: "5"\)/ },
    { code: 'argument', text: 'New actions:\n- None\n\n1. out1 = LOOKUP("db", "a", "b") : x', line: 4, column: 18, message: /argument 1 of LOOKUP is the database: write DB/ },
    { code: 'duplicate-output', text: 'New actions:\n- None\n\n1. out1 = LOOKUP(DB, "a", "b") : x\n2. out1 = CONCAT(out1) : y', line: 5, column: 4, message: /out1 is already the output of step 1/ },
  ];
  it.each(cases)('refuses $code with its message and position (line $line, column $column)', ({ code, text, line, column, message }) => {
    const errors = errorsOf(text);
    const error = errors.find((candidate) => candidate.code === code);
    expect(error, JSON.stringify(errors)).toBeDefined();
    expect(error).toMatchObject({ line, column });
    expect(error?.message).toMatch(message);
    expect(formatProgramError(error as ProgramError)).toMatch(new RegExp(`^line ${line}, column ${column}: `));
  });

  it('reports every error of a program, not only the first, and does not cascade from a bad line', () => {
    const errors = errorsOf('New actions:\n- None\n\n1. out1 = FIND_FLOW(DB, "a") : x\n2. out2 = LOOKUP(DB, "a") : y\n3. out3 = CONCAT(out1, out2) : z');
    expect(errors.map((error) => error.code)).toEqual(['unknown-action', 'arity']);
  });
});

describe('the action library', () => {
  it('holds the eight seed actions with signature, definition, usage and provenance, and demonstrations that parse', () => {
    const seed = seedLibrary();
    expect(seed.actions.map((action) => action.name)).toEqual(['LIST_CANDIDATES', 'LOOKUP', 'NEIGHBORS', 'AGGREGATE', 'APPLY_RULE', 'COMPARE', 'ARGMAX', 'CONCAT']);
    expect(seed.actions.every((action) => action.usage === 0 && action.provenance === 'seed' && action.definition.length > 20)).toBe(true);
    expect(actionLine(seed.actions.at(-1) as never)).toBe('CONCAT(S1, S2, …) : Joins its inputs, one per line (run by the workbench, not the model).');
    for (const demo of seed.demonstrations) expect(parseProgram(demo.program, library), demo.question).toMatchObject({ ok: true });
  });

  it('refuses a file of another format or version, and duplicate names, with the reason', () => {
    const seed = seedLibrary();
    expect(() => readActionLibrary('{', 'lib.json')).toThrow(/lib.json is not JSON/);
    expect(() => readActionLibrary(JSON.stringify({ ...seed, version: 2 }), 'lib.json')).toThrow(/lib.json is not a Pearl action library .*version: /);
    expect(() => readActionLibrary(JSON.stringify({ ...seed, actions: [...seed.actions, seed.actions[0]] }), 'lib.json')).toThrow(/defines the action LIST_CANDIDATES twice/);
    expect(() => readActionLibrary(JSON.stringify({ ...seed, actions: [{ ...seed.actions[0], name: 'lookup' }] }), 'lib.json')).toThrow(/actions.0.name: an action name is upper case/);
  });
});
