import type { PlanNode } from '../../../contract/run';

/**
 * Pearl's plan format (Sun et al. 2023, §3.2) and its parser (§3.4). A program is two blocks
 * separated by a blank line:
 *
 *     New actions:
 *     - HOME_INFLOW(DB, node) : the value flowing into a trade node from upstream
 *
 *     1. out1 = LOOKUP(DB, "baltic_sea", "local_value, ingoing") : the home node's values
 *     2. out2 = NEIGHBORS(DB, "baltic_sea", "source", "in") : nodes that feed the home node
 *     3. out3 = CONCAT(out1, out2) : the evidence together
 *
 * (`- None` when no action is new). `DB` stands for the database, as the paper's `CTX` stands
 * for the long document. The parser reports the paper's nine error classes, each with the line
 * and column it points at, and a message written to be read by the planner in its fix prompt.
 */

/** An action's calling form: `NAME(P1, P2, …)`; a `DB` parameter means the action reads the database. */
export interface ActionSignature {
  name: string;
  params: string[];
  /** Takes any number (at least one) of arguments (CONCAT). */
  variadic?: boolean;
}

/** The paper's nine error classes, in its order; `duplicate-output` is ours [ext]. */
export const programErrorCodes = [
  'blocks',
  'new-action',
  'numbering',
  'assignment',
  'call',
  'unknown-action',
  'arity',
  'self-reference',
  'argument',
  'duplicate-output',
] as const;
export type ProgramErrorCode = (typeof programErrorCodes)[number];

export interface ProgramError {
  code: ProgramErrorCode;
  /** 1-based, in the program text as the planner wrote it. */
  line: number;
  column: number;
  message: string;
}

/** An argument as written: the database, a quoted string (unquoted value kept), or an earlier step's output. */
export type ProgramArgument = { kind: 'db' } | { kind: 'string'; value: string } | { kind: 'output'; name: string };

export interface NewAction extends ActionSignature {
  definition: string;
  line: number;
}

export interface ProgramStep {
  /** The output's name, which is also the step's id in events and cells (`out1`, …). */
  id: string;
  index: number;
  action: string;
  args: ProgramArgument[];
  description: string;
  /** The line as written (trimmed). */
  text: string;
  line: number;
}

export interface Program {
  newActions: NewAction[];
  steps: ProgramStep[];
}

export type ParseResult = { ok: true; program: Program } | { ok: false; errors: ProgramError[] };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ACTION_NAME = /^[A-Z][A-Z0-9_]*$/;

/** `line 3, column 12: …` — how an error is shown to the planner and the analyst. */
export function formatProgramError(error: ProgramError): string {
  return `line ${error.line}, column ${error.column}: ${error.message}`;
}

/**
 * Parses a program against the actions the library offers. Collects every error it can find
 * (later lines are still checked after a bad one, with the bad line's output taken as defined
 * so one mistake is not reported many times), except that a program without its two blocks is
 * not read further.
 */
export function parseProgram(text: string, library: readonly ActionSignature[]): ParseResult {
  const lines = unfence(text).split('\n');
  const blocks = splitBlocks(lines);
  if (blocks.length !== 2) {
    const at = blocks[2] ?? blocks[0];
    return {
      ok: false,
      errors: [
        {
          code: 'blocks',
          line: at ? at.start + 1 : 1,
          column: 1,
          message:
            blocks.length < 2
              ? `the program must have two blocks separated by a blank line, the new actions ("New actions:" then "- None" or one "- NAME(ARGS) : definition" per line) and the numbered steps; found ${blocks.length === 0 ? 'nothing' : 'one block'}`
              : `the program must have exactly two blocks (new actions, then steps) separated by one blank line; found ${blocks.length} blocks, the third starts here (no blank lines inside a block)`,
        },
      ],
    };
  }
  const [actionBlock, stepBlock] = blocks as [Block, Block];
  const errors: ProgramError[] = [];
  const newActions = readNewActions(actionBlock, library, errors);
  const known = new Map<string, ActionSignature>();
  for (const action of library) known.set(action.name, action);
  for (const action of newActions) if (!known.has(action.name)) known.set(action.name, action);
  const steps = readSteps(stepBlock, known, errors);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, program: { newActions, steps } };
}

interface Block {
  /** 0-based index of the block's first line. */
  start: number;
  lines: { text: string; index: number }[];
}

/** A program wrapped in a Markdown fence is read without the fence lines (kept as blank lines, so positions hold). */
function unfence(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => (/^\s*```[A-Za-z]*\s*$/.test(line) ? '' : line))
    .join('\n');
}

function splitBlocks(lines: string[]): Block[] {
  const blocks: Block[] = [];
  let current: Block | null = null;
  lines.forEach((text, index) => {
    if (text.trim() === '') {
      current = null;
      return;
    }
    if (!current) {
      current = { start: index, lines: [] };
      blocks.push(current);
    }
    current.lines.push({ text, index });
  });
  return blocks;
}

function readNewActions(block: Block, library: readonly ActionSignature[], errors: ProgramError[]): NewAction[] {
  const actions: NewAction[] = [];
  let body = block.lines;
  if (body[0] && /^\s*new actions\s*(\(if any\))?\s*:\s*$/i.test(body[0].text)) body = body.slice(1);
  else if (body[0] && /^\s*new actions\s*:/i.test(body[0].text)) {
    // "New actions: - None" on one line
    const rest = body[0].text.replace(/^\s*new actions\s*:\s*/i, '');
    if (/^-?\s*none\.?\s*$/i.test(rest)) body = body.slice(1);
  }
  for (const { text, index } of body) {
    const line = index + 1;
    const indent = text.length - text.trimStart().length;
    const content = text.trim().replace(/^[-*•]\s*/, '');
    if (/^none\.?$/i.test(content)) continue;
    const offset = indent + (text.trim().length - content.length) + 1;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)\s*\(([^()]*)\)\s*:\s*(.*)$/.exec(content);
    if (!match) {
      errors.push({
        code: 'new-action',
        line,
        column: offset,
        message: `a new action is written "- NAME(ARG1, ARG2) : one-sentence definition" (or "- None"); cannot read "${clip(content)}"${/^\d+\./.test(content) ? ' (a step? leave a blank line between the new actions and the steps)' : ''}`,
      });
      continue;
    }
    const [, name = '', paramText = '', definition = ''] = match;
    const params = paramText.split(',').map((param) => param.trim());
    // A program whose new action the analyst has since kept in the library (same name and
    // parameters) still reads: the action is the library's now, and the program runs again as it was.
    const kept = library.find((action) => action.name === name);
    if (kept && !kept.variadic && kept.params.length === params.length && kept.params.every((param, position) => param === params[position])) continue;
    const problem = !ACTION_NAME.test(name)
      ? `the new action's name "${name}" must be upper case letters, digits and underscores, e.g. FIND_UPSTREAM`
      : paramText.trim() === '' || params.some((param) => !NAME.test(param))
        ? `the parameters of ${name} must be one or more names separated by commas, e.g. ${name}(DB, node)`
        : definition.trim() === ''
          ? `the new action ${name} needs a one-sentence definition after ":"`
          : library.some((action) => action.name === name)
            ? `${name} is already in the action library; use it as it is or give the new action another name [ext]`
            : actions.some((action) => action.name === name)
              ? `${name} is defined twice among the new actions`
              : null;
    if (problem) {
      errors.push({ code: 'new-action', line, column: offset, message: problem });
      continue;
    }
    actions.push({ name, params, definition: definition.trim(), line });
  }
  return actions;
}

function readSteps(block: Block, known: Map<string, ActionSignature>, errors: ProgramError[]): ProgramStep[] {
  const steps: ProgramStep[] = [];
  /** Output names by the step that defines them (also bad lines whose name could be read). */
  const defined = new Map<string, number>();
  const lines = block.lines.filter((line, position) => !(position === 0 && /^\s*(plan|steps)\s*:\s*$/i.test(line.text)));
  // Every name the program defines, so a forward reference is told apart from an unknown one.
  const definedLater = new Map<string, number>();
  lines.forEach(({ text }, position) => {
    const name = /^\s*\d+\s*[.)]\s*([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(text)?.[1];
    if (name && !definedLater.has(name)) definedLater.set(name, position + 1);
  });
  lines.forEach(({ text, index }, position) => {
    const line = index + 1;
    const expected = position + 1;
    const lineErrors = errors.length;
    const numbering = /^(\s*)(\d+)\s*[.)]\s*/.exec(text);
    if (!numbering) {
      errors.push({ code: 'numbering', line, column: indentOf(text) + 1, message: `each step starts with its number and a dot, "${expected}. name = ACTION(args) : description"; this line has no number` });
      return;
    }
    if (Number(numbering[2]) !== expected) {
      errors.push({ code: 'numbering', line, column: (numbering[1]?.length ?? 0) + 1, message: `steps are numbered 1, 2, 3, … in order: expected ${expected}, found ${numbering[2]}` });
    }
    const afterNumber = numbering[0].length;
    const rest = text.slice(afterNumber);
    const equals = indexOutsideQuotes(rest, '=');
    const open = indexOutsideQuotes(rest, '(');
    if (equals < 0 || (open >= 0 && open < equals)) {
      errors.push({ code: 'assignment', line, column: afterNumber + 1, message: `a step assigns its result to a name: "${expected}. out${expected} = ACTION(args) : description"; there is no "=" before the action` });
      return;
    }
    const outputName = rest.slice(0, equals).trim();
    if (!NAME.test(outputName)) {
      errors.push({ code: 'assignment', line, column: afterNumber + 1, message: `the left of "=" must be one output name (letters, digits, underscores), e.g. out${expected}; found "${clip(outputName)}"` });
      return;
    }
    if (defined.has(outputName)) {
      errors.push({ code: 'duplicate-output', line, column: afterNumber + 1, message: `${outputName} is already the output of step ${defined.get(outputName)}; give every output its own name [ext]` });
    } else defined.set(outputName, expected);

    const callStart = afterNumber + equals + 1;
    const call = readCall(text, callStart);
    if ('error' in call) {
      errors.push({ code: 'call', line, column: call.column, message: call.error });
      return;
    }
    const action = known.get(call.name);
    if (!action) {
      errors.push({
        code: 'unknown-action',
        line,
        column: call.nameColumn,
        message: `unknown action ${call.name}: use an action of the library (${[...known.keys()].join(', ')}) or define it under "New actions:"`,
      });
    } else if (action.variadic ? call.args.length < 1 : call.args.length !== action.params.length) {
      errors.push({
        code: 'arity',
        line,
        column: call.nameColumn,
        message: action.variadic
          ? `${action.name} takes one or more arguments, found none`
          : `${action.name}(${action.params.join(', ')}) takes ${action.params.length} argument${action.params.length === 1 ? '' : 's'}, found ${call.args.length}`,
      });
    }
    const args: ProgramArgument[] = [];
    call.args.forEach((arg, argIndex) => {
      const read = readArgument(arg.text);
      const param = action && !action.variadic ? action.params[argIndex] : undefined;
      if (read.kind === 'output' && read.name === outputName) {
        errors.push({ code: 'self-reference', line, column: arg.column, message: `${outputName} is used as an argument of the step that defines it; a step can only use outputs of earlier steps` });
      } else if (read.kind === 'invalid') {
        errors.push({ code: 'argument', line, column: arg.column, message: `argument "${clip(arg.text)}" is neither DB, a quoted string nor an earlier output${/^[-\d.]+$/.test(arg.text.trim()) ? ' (quote numbers: "5")' : ''}` });
      } else if (read.kind === 'output' && !defined.has(read.name)) {
        const later = definedLater.get(read.name);
        errors.push({
          code: 'argument',
          line,
          column: arg.column,
          message:
            later !== undefined
              ? `${read.name} is the output of step ${later}, which comes later; a step can only use outputs of earlier steps`
              : `${read.name} is neither DB, a quoted string nor an earlier output (the outputs so far: ${[...defined.keys()].filter((name) => name !== outputName).join(', ') || 'none'})`,
        });
      } else if (read.kind === 'output' && defined.get(read.name) === expected) {
        errors.push({ code: 'self-reference', line, column: arg.column, message: `${read.name} is used as an argument of the step that defines it; a step can only use outputs of earlier steps` });
      } else if (param !== undefined && (param === 'DB') !== (read.kind === 'db')) {
        errors.push({
          code: 'argument',
          line,
          column: arg.column,
          message: param === 'DB' ? `argument ${argIndex + 1} of ${action?.name ?? call.name} is the database: write DB` : `DB can only be passed where an action takes the database; parameter ${argIndex + 1} of ${action?.name ?? call.name} is ${param}`,
        });
      } else args.push(read);
    });

    const colon = call.end;
    const description = /^\s*:\s*(.*)$/.exec(text.slice(colon));
    if (!description || description[1]?.trim() === '') {
      errors.push({ code: 'call', line, column: colon + 1, message: `after ${call.name}(…) comes ":" and a one-sentence description of the step` });
      return;
    }
    if (errors.length === lineErrors) {
      steps.push({ id: outputName, index: expected, action: call.name, args, description: description[1]?.trim() ?? '', text: text.trim(), line });
    }
  });
  if (lines.length === 0) errors.push({ code: 'blocks', line: block.start + 1, column: 1, message: 'the second block must list at least one numbered step' });
  return steps;
}

type Call = { name: string; nameColumn: number; args: { text: string; column: number }[]; end: number } | { error: string; column: number };

/** Reads `NAME(arg, "a, (b)", out1)` from `start`; quoted strings may hold commas and parentheses. */
function readCall(text: string, start: number): Call {
  let position = start;
  while (text[position] === ' ' || text[position] === '\t') position++;
  const nameMatch = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(position));
  if (!nameMatch) return { error: `after "=" comes an action call, NAME(arguments); found "${clip(text.slice(position))}"`, column: position + 1 };
  const name = nameMatch[0];
  const nameColumn = position + 1;
  position += name.length;
  while (text[position] === ' ') position++;
  if (text[position] !== '(') return { error: `${name} must be followed by its arguments in parentheses, ${name}(…)`, column: position + 1 };
  position++;
  const args: { text: string; column: number }[] = [];
  let current = '';
  let currentStart = position;
  let quote: string | null = null;
  let quoteStart = 0;
  for (; position < text.length; position++) {
    const char = text[position] as string;
    if (quote) {
      current += char;
      if (char === '\\' && position + 1 < text.length) {
        current += text[position + 1];
        position++;
      } else if (char === quote) quote = null;
      continue;
    }
    if (char === '"' || char === "'" || char === '“') {
      quote = char === '“' ? '”' : char;
      quoteStart = position;
      current += char;
    } else if (char === '(') {
      return { error: `arguments cannot be calls or contain unquoted parentheses; give the inner call its own step, or quote the text`, column: position + 1 };
    } else if (char === ',' || char === ')') {
      const trimmed = current.trim();
      if (trimmed === '' && !(char === ')' && args.length === 0)) return { error: `an argument of ${name} is empty`, column: position + 1 };
      if (trimmed !== '') args.push({ text: trimmed, column: currentStart + (current.length - current.trimStart().length) + 1 });
      current = '';
      currentStart = position + 1;
      if (char === ')') return { name, nameColumn, args, end: position + 1 };
    } else current += char;
  }
  return quote
    ? { error: `a quoted string is not closed in the arguments of ${name}`, column: quoteStart + 1 }
    : { error: `the arguments of ${name} are not closed with ")"`, column: text.length + 1 };
}

function readArgument(text: string): ProgramArgument | { kind: 'invalid' } {
  if (text === 'DB') return { kind: 'db' };
  const first = text[0];
  const closing = first === '“' ? '”' : first;
  if ((first === '"' || first === "'" || first === '“') && text.length >= 2 && text.endsWith(closing as string)) {
    return { kind: 'string', value: text.slice(1, -1).replace(/\\(.)/g, '$1') };
  }
  if (NAME.test(text)) return { kind: 'output', name: text };
  return { kind: 'invalid' };
}

function indexOutsideQuotes(text: string, target: string): number {
  let quote: string | null = null;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (quote) {
      if (char === '\\') index++;
      else if (char === quote) quote = null;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === '“') quote = '”';
    else if (char === target) return index;
  }
  return -1;
}

function indentOf(text: string): number {
  return text.length - text.trimStart().length;
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** The outputs no later step uses: their texts, joined, are the answer (the paper's sinks). */
export function sinkSteps(program: Program): ProgramStep[] {
  const used = new Set(program.steps.flatMap((step) => step.args.flatMap((arg) => (arg.kind === 'output' ? [arg.name] : []))));
  return program.steps.filter((step) => !used.has(step.id));
}

/** The program as plan nodes (ids are the output names, dependencies the outputs each step uses). */
export function programNodes(program: Program): PlanNode[] {
  return program.steps.map((step) => ({
    id: step.id,
    text: step.text.replace(/^\d+\s*[.)]\s*/, ''),
    dependsOn: [...new Set(step.args.flatMap((arg) => (arg.kind === 'output' ? [arg.name] : [])))],
  }));
}

/** How an argument is written back (bound-argument listings, prompts). */
export function argumentText(arg: ProgramArgument): string {
  return arg.kind === 'db' ? 'DB' : arg.kind === 'output' ? arg.name : JSON.stringify(arg.value);
}

/** The program cell's check: the parser's verdict on an edited program, against the run's actions. */
export function checkProgram(text: string, library: readonly ActionSignature[]): { valid: boolean; errors: ProgramError[]; steps: number; newActions: string[] } {
  const parsed = parseProgram(text, library.map(({ name, params, variadic }) => ({ name, params, ...(variadic ? { variadic: true } : {}) })));
  return parsed.ok ? { valid: true, errors: [], steps: parsed.program.steps.length, newActions: parsed.program.newActions.map((action) => action.name) } : { valid: false, errors: parsed.errors, steps: 0, newActions: [] };
}
