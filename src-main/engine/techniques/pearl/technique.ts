import { WorkbenchError } from '../../../contract/errors';
import { extensionOn } from '../../../contract/fidelity';
import { pearlExtensions } from './extensions';
import type { ChatMessage } from '../../../llm/types';
import { recogniseScenario } from '../../../simulators/scenario';
import { RunContext, type AcceptedCall, type RunOutcome, type Turn } from '../../run-context';
import { recordReview } from '../../review-gate';
import { summarizeSchema } from '../../schema-summary';
import { answerTool } from '../../tools/answer';
import { queryTool } from '../../tools/query';
import { simulateKnown } from '../../tools/simulate';
import type { ToolDefinition } from '../../tools/tool';
import { planRag } from '../planrag/technique';
import type { TechniqueDefinition } from '../technique';
import { readTechniqueOptions } from '../technique-options';
import { namedLibrary, pearlOptions, pearlOptionsSchema } from './options';
import { actionLine, availableLibraries, libraryFor, signaturesOf, type ActionLibrary } from './library';
import { mapAnswer } from './mapping';
import { argumentText, formatProgramError, parseProgram, programNodes, sinkSteps, type NewAction, type Program, type ProgramStep } from './program';
import { fixMessages, mappingMessages, plannerMessages, stepMessages, zeroShotMessages, type PlannerContext } from './prompts';
import { outputsToKeep, stepAndDependents } from './rerun';
import { programTool, stepOutputTool } from './tools';
import { gatherProgramAttempt } from './attempt-cells';
import { distinctReplies, toolReplies } from '../structured-replies';

/** Planner attempts before the fallback (the reference code gives up after the eighth). */
export const maxProgramAttempts = 8;
/** Queries one database step may make: its query, and one more when that one failed [ext] (`pearl-query-retry`; the paper: one). */
const maxQueriesPerStep = 2;
/** Steps carried out at once when their inputs allow (one at a time in step-through) [ext] (`pearl-parallel-steps`; the paper: in order). */
export const maxParallelSteps = 3;

/** The token limit of one of Pearl's calls when the run's fidelity sets one (the paper's 256 for the plan, 512 for a step). */
function callTokens(run: RunContext, purpose: 'plan' | 'step' | 'mapping'): number | undefined {
  return run.options.fidelity?.callMaxTokens[purpose];
}

/**
 * Pearl (Sun et al. 2023, "PEARL: Prompting LLMs to Plan and Execute Actions Over Long
 * Documents"), with the database in the place of the long document (SPECS.md §2.5):
 *
 * 1. The planner writes a program over the action library from the question, the rules and
 *    the schema, never the data, shown a few demonstrations.
 *    A program the analyst edited in the program cell (`options.program`) replaces this step.
 * 2. The parser checks it (./program.ts); an invalid program goes back with every error so
 *    far, up to eight attempts; then the run falls back to the paper's zero-shot answer (or,
 *    an extension, to PlanRAG), labelled in its events.
 * 3. The steps run as their references allow (independent ones at once, up to
 *    `maxParallelSteps`; one at a time in step-through). A step whose action takes DB asks for one query realising it
 *    with its bound arguments, runs it read-only, and turns the rows into the step's output;
 *    other steps reason over their bound outputs in one call; CONCAT joins in code.
 * 4. The answer is every sink output joined, mapped to a candidate (in code when it names one,
 *    else by one model call), and checked by the simulator.
 *
 * Every record of the technique is a `tool` event named `pearl-program`, `pearl-step`,
 * `pearl-mapping` or `pearl-fallback`, carrying the step id (`out1`, …) as its node; the
 * accepted program is also a `plan` event whose nodes are its steps.
 */
export const pearl: TechniqueDefinition = {
  id: 'pearl',
  label: 'Pearl',
  summary:
    'Plans the analysis as a small program over a library of typed actions, checked by a parser (up to 8 corrections, then a zero-shot answer as in the paper, or PlanRAG in the product), and runs it step by step: one query per database step, CONCAT in code, the answer from every unused output.',
  method: '# Method\nThe analysis is a program of typed actions; each call carries out one step of it.',
  options: pearlOptions,
  runsPrograms: true,
  // The paper's limits (SPECS §2.2): plan 256, step 512; the mapping call answers through the answer tool (a name and a rationale), so it gets a step's 512 rather than the paper's 4 tokens for one letter.
  paperSettings: { callTokens: { plan: 256, step: 512, mapping: 512 } },
  extensions: Object.values(pearlExtensions),
  // The program, a step's query and output, the mapped answer; and PlanRAG's when it is the fallback [ext].
  // Its program attempts gather into one program cell; its other records keep their input for the program and step views.
  reviews: [
    { subject: 'replan', what: 'the program before it runs' },
    { subject: 'query', what: 'each step’s query' },
  ],
  cells: { toolPrefixes: ['pearl-'], project: (event, cells) => event.tool === 'pearl-program' && gatherProgramAttempt(event, cells) },
  structuredReplies: distinctReplies([...toolReplies([programTool, queryTool, stepOutputTool, answerTool]), ...planRag.structuredReplies]),
  run: runPearl,
};

/** The library actions each live run's steps called (not the steps kept from an earlier run), for the library's usage counts. */
const actionsCalled = new WeakMap<RunContext, string[]>();

/**
 * A run with the library its options name (from the host: the workspace, or a file for the CLI);
 * when it ends, however it ends, the actions its steps called count toward that library's usage.
 */
async function runPearl(run: RunContext): Promise<RunOutcome> {
  const host = run.options.host ?? {};
  let reference: string | undefined;
  let library: ActionLibrary | undefined;
  try {
    reference = readTechniqueOptions(pearlOptionsSchema, run.options.techniqueOptions, 'Pearl').actionLibrary;
    library = reference === undefined ? undefined : namedLibrary(reference, host);
  } catch (error) {
    return run.finish('failed', WorkbenchError.from(error).message);
  }
  const called: string[] = [];
  actionsCalled.set(run, called);
  try {
    return await runPearlWith(run, [], library);
  } finally {
    try {
      const known = (name: string): boolean => (library ? library.actions.some((action) => action.name === name) : true);
      host.recordActionUsage?.(reference ?? 'seed', called.filter(known));
    } catch {
      // A usage count that cannot be written must not change how the run ended.
    }
  }
}

/**
 * A Pearl run whose planner is also shown programs that ran but reached a wrong decision (the
 * paper's self-refinement of demonstrations, ./refine.ts); an ordinary run shows none. With
 * `chosen`, the run plans with that library; else with the best fit for the data.
 */
export async function runPearlWith(run: RunContext, failedPrograms: readonly string[], chosen?: ActionLibrary): Promise<RunOutcome> {
  let schemaSummary: string;
  let scenario: string | null;
  try {
    const schema = await run.options.connector.schema();
    schemaSummary = summarizeSchema(schema);
    scenario = run.options.simulator?.scenario ?? recogniseScenario(schema);
  } catch (error) {
    return run.finish('failed', `Could not read the database schema: ${WorkbenchError.from(error).message}`);
  }
  const library = chosen ?? libraryFor(availableLibraries(), scenario, { kind: run.engine === 'kuzu' || run.engine === 'neo4j' ? 'graph' : 'relational' });
  const context: PlannerContext = {
    question: run.options.question,
    rules: run.options.rules,
    engine: run.engine,
    schemaSummary,
    library,
    demonstrations: library.demonstrations.filter((demo) => scenario === null || demo.scenario === scenario || demo.scenario === 'any'),
  };

  // A resumed run carries on with the program it had and the outputs it had reached.
  const saved = run.options.resume ? savedState(run.state.technique, signaturesOf(library)) : null;
  if (run.options.resume) run.emit({ type: 'run-resume', step: run.state.steps + 1, messageCount: 0 });
  let program: Program;
  if (saved) program = saved.program;
  else {
    const planned = run.options.program !== undefined ? analystProgram(run, context.library, run.options.program) : await formulate(run, context, failedPrograms);
    if ('end' in planned) return planned.end;
    if ('fallback' in planned) return fallBack(run, planned.errors, context);
    const reviewed = run.options.gate.interactive ? await reviewProgram(run, planned.program, signaturesOf(library)) : planned;
    if ('end' in reviewed) return reviewed.end;
    program = reviewed.program;
    const nodes = programNodes(program);
    run.emit({ type: 'plan', step: run.state.steps, steps: nodes.map((node) => node.text), nodes });
    run.applyStateChanges({ plan: nodes.map((node) => node.text), planned: true });
  }

  const outputs = new Map<string, string>(Object.entries(saved?.outputs ?? {}));
  if (!saved && run.options.keptOutputs) keepEarlierOutputs(run, program, outputs);
  const keep = (): void => {
    const state: PearlState = { program: programText(program), outputs: Object.fromEntries(outputs) };
    run.saveTechniqueState(state);
  };
  keep();
  const parallel = run.options.gate.interactive || !extensionOn(run.options.fidelity, pearlExtensions.parallelSteps) ? 1 : maxParallelSteps;
  const ended = await executeSteps(program, outputs, parallel, async (step) => {
    const done = await execute(run, { step, program, library, schemaSummary, outputs });
    if (typeof done !== 'string') return done;
    outputs.set(step.id, done);
    keep();
    return null;
  });
  return ended ?? answer(run, program, outputs);
}

/**
 * Carries out the steps not yet done, each once every output it uses is there, up to `limit`
 * at once (a program is a graph by its references: independent steps need not wait for each
 * other). The first step that ends the run stops new ones from starting; those in flight
 * settle first. Returns that ending, or null when every step is done.
 */
export async function executeSteps(program: Program, outputs: ReadonlyMap<string, string>, limit: number, work: (step: ProgramStep) => Promise<RunOutcome | null>): Promise<RunOutcome | null> {
  const needs = new Map(program.steps.map((step) => [step.id, step.args.flatMap((arg) => (arg.kind === 'output' ? [arg.name] : []))]));
  const pending = program.steps.filter((step) => !outputs.has(step.id));
  const running = new Map<string, Promise<{ id: string; ended: RunOutcome | null }>>();
  let ending: RunOutcome | null = null;
  for (;;) {
    if (ending === null) {
      for (const step of pending.filter((candidate) => (needs.get(candidate.id) ?? []).every((name) => outputs.has(name)))) {
        if (running.size >= limit) break;
        pending.splice(pending.indexOf(step), 1);
        running.set(step.id, work(step).then((ended) => ({ id: step.id, ended })));
      }
    }
    if (running.size === 0) return ending;
    const settled = await Promise.race(running.values());
    running.delete(settled.id);
    ending ??= settled.ended;
  }
}

/**
 * Re-running one step: the earlier run's outputs of the steps outside the re-run are this run's
 * too, each recorded as kept (so the notebook and the report read complete); the step and what
 * depends on it then run as usual.
 */
function keepEarlierOutputs(run: RunContext, program: Program, outputs: Map<string, string>): void {
  const kept = run.options.keptOutputs;
  if (!kept) return;
  const rerun = stepAndDependents(program, kept.step);
  for (const [id, output] of outputsToKeep(program, kept)) {
    outputs.set(id, output);
    const step = program.steps.find((candidate) => candidate.id === id);
    run.emit({
      type: 'tool',
      step: run.state.steps,
      node: id,
      tool: 'pearl-step',
      input: { index: step?.index ?? 0, action: step?.action ?? '', kind: 'kept', description: step?.description ?? '', args: [], queries: [], output, keptFrom: kept.fromRunId, rerun },
      output: `${step?.text.replace(/^\d+\s*[.)]\s*/, '') ?? id}  [kept from ${kept.fromRunId}]\n\n${output}`,
    });
  }
}

/** What a checkpoint keeps of a Pearl run: the program that runs and the outputs reached so far. */
interface PearlState {
  program: string;
  outputs: Record<string, string>;
}

/** The program as text, as the parser reads it (new actions block, blank line, steps). */
function programText(program: Program): string {
  const newActions = program.newActions.length ? program.newActions.map((action) => `- ${actionLine(action)}`).join('\n') : '- None';
  return `New actions:\n${newActions}\n\n${program.steps.map((step) => step.text).join('\n')}`;
}

/** A checkpoint's Pearl state, if it holds a program that still parses (else the run plans again). */
function savedState(value: unknown, signatures: ReturnType<typeof signaturesOf>): { program: Program; outputs: Record<string, string> } | null {
  if (typeof value !== 'object' || value === null) return null;
  const { program, outputs } = value as Partial<PearlState>;
  if (typeof program !== 'string' || typeof outputs !== 'object' || outputs === null) return null;
  const parsed = parseProgram(program, signatures);
  if (!parsed.ok) return null;
  const kept = Object.fromEntries(Object.entries(outputs).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && parsed.program.steps.some((step) => step.id === entry[0])));
  return { program: parsed.program, outputs: kept };
}

/** What a program event says of the library it was checked against (the program cell completes and checks with it). */
function libraryInput(library: ActionLibrary) {
  return { scenario: library.scenario, schema: library.schema, actions: library.actions.length, signatures: library.actions.map((action) => ({ name: action.name, params: action.params, ...(action.variadic ? { variadic: true } : {}), definition: action.definition })) };
}

/**
 * A program the analyst wrote or edited in the program cell, run instead of planning one:
 * parsed like the model's, recorded as the analyst's; one the parser refuses ends the run with
 * its errors (the cell checks before it starts a run, so this is the last guard).
 */
function analystProgram(run: RunContext, library: ActionLibrary, text: string): { program: Program } | { end: RunOutcome } {
  const parsed = parseProgram(text, signaturesOf(library));
  const errors = parsed.ok ? [] : parsed.errors.map(formatProgramError);
  run.emit({
    type: 'tool',
    step: run.state.steps,
    tool: 'pearl-program',
    input: { attempt: 'analyst', author: 'analyst', library: libraryInput(library), program: text, valid: parsed.ok, errors: parsed.ok ? [] : parsed.errors, ...(parsed.ok ? { newActions: parsed.program.newActions.map((action) => action.name) } : {}) },
    output: `Program written by the analyst:\n${text}\n\n${parsed.ok ? `The parser accepts it: ${parsed.program.steps.length} steps.` : `The parser refuses it:\n${errors.map((error) => `- ${error}`).join('\n')}`}`,
  });
  if (parsed.ok) return { program: parsed.program };
  return { end: run.finish('failed', `The analyst's program does not parse: ${errors.join('; ')}`) };
}

/** Plan formulation with self-correction: a valid program, the fallback, or the run's end. */
async function formulate(run: RunContext, context: PlannerContext, failedPrograms: readonly string[]): Promise<{ program: Program } | { fallback: true; errors: string[] } | { end: RunOutcome }> {
  const signatures = signaturesOf(context.library);
  const everyError: string[] = [];
  let last: { text: string; errors: string[] } | null = null;
  for (let attempt = 1; attempt <= maxProgramAttempts; attempt++) {
    const messages = last ? fixMessages(context, last.text, last.errors, everyError.slice(0, everyError.length - last.errors.length), failedPrograms) : plannerMessages(context, failedPrograms);
    const reply = await ask(run, messages, [programTool], callTokens(run, 'plan'));
    if ('end' in reply) return reply;
    const text = (reply.call.arguments as { program: string }).program;
    const parsed = parseProgram(text, signatures);
    const errors = parsed.ok ? [] : parsed.errors.map(formatProgramError);
    run.emit({
      type: 'tool',
      step: reply.step,
      tool: 'pearl-program',
      input: {
        attempt,
        maxAttempts: maxProgramAttempts,
        library: libraryInput(context.library),
        program: text,
        valid: parsed.ok,
        errors: parsed.ok ? [] : parsed.errors,
        ...(parsed.ok ? { newActions: parsed.program.newActions.map((action) => action.name), actionsUsed: parsed.program.steps.map((step) => step.action) } : {}),
      },
      output: `Program, attempt ${attempt} of ${maxProgramAttempts}:\n${text}\n\n${parsed.ok ? `The parser accepts it: ${parsed.program.steps.length} steps.` : `The parser refuses it:\n${errors.map((error) => `- ${error}`).join('\n')}`}`,
    });
    if (parsed.ok) return { program: parsed.program };
    everyError.push(...errors);
    last = { text, errors };
  }
  return { fallback: true, errors: everyError };
}

/**
 * Step-through: the analyst reviews the program before it runs, through the re-plan review
 * point (the program's lines are its steps). An edited program is parsed like the model's; one
 * the parser refuses comes back to the analyst with its errors until it reads or is approved
 * as it was. New actions stay as the planner defined them.
 */
async function reviewProgram(run: RunContext, proposed: Program, signatures: ReturnType<typeof signaturesOf>): Promise<{ program: Program } | { end: RunOutcome }> {
  const program = proposed;
  let lines = program.steps.map((step) => step.text.replace(/^\d+\s*[.)]\s*/, ''));
  let problem = '';
  for (let round = 1; ; round++) {
    const step = run.state.steps;
    const decision = await run.options.gate.review(
      // `node: 'program'` tells the review panel this is a program waiting to run, not a model's re-plan.
      { subject: 'replan', step, node: 'program', steps: lines, reason: `${problem}Review the Pearl program before it runs: approve it, or edit its lines (each "name = ACTION(args) : description").` },
      run.signal,
    );
    recordReview(run, { step }, 'replan', lines.join('\n'), decision);
    if (decision.action === 'stop') return { end: run.finish('stopped', 'The analyst stopped the run to continue by hand') };
    if (decision.action !== 'edit' || !decision.steps?.length) return { program };
    const newActions = program.newActions.length ? program.newActions.map((action) => `- ${actionLine(action)}`).join('\n') : '- None';
    const text = `New actions:\n${newActions}\n\n${decision.steps.map((line, index) => `${index + 1}. ${line.trim().replace(/^\d+\s*[.)]\s*/, '')}`).join('\n')}`;
    const parsed = parseProgram(text, [...signatures, ...program.newActions]);
    const errors = parsed.ok ? [] : parsed.errors.map(formatProgramError);
    run.emit({
      type: 'tool',
      step,
      tool: 'pearl-program',
      input: { attempt: `analyst ${round}`, author: 'analyst', program: text, valid: parsed.ok, errors: parsed.ok ? [] : parsed.errors },
      output: `Program edited by the analyst:\n${text}\n\n${parsed.ok ? `The parser accepts it: ${parsed.program.steps.length} steps.` : `The parser refuses it:\n${errors.map((error) => `- ${error}`).join('\n')}`}`,
    });
    if (parsed.ok) return { program: parsed.program };
    problem = `Your edit could not be read (${errors.join('; ')}); correct it, or approve to run the model's program. `;
    lines = decision.steps;
  }
}

/** One reply that makes one of the offered calls (unusable replies are repaired by the executor). */
async function ask(run: RunContext, messages: ChatMessage[], offered: ToolDefinition[], maxTokens?: number): Promise<{ call: AcceptedCall; step: number; turn: Extract<Turn, { calls: AcceptedCall[] }> } | { end: RunOutcome }> {
  for (;;) {
    // A step in flight ended the run (its answer, a failure, a limit): stop at this step's next model call.
    const ended = run.ended;
    if (ended) return { end: ended };
    const limit = run.limitReached();
    if (limit) return { end: limit };
    const turn = await run.turn(messages, offered, maxTokens ? { maxTokens } : {});
    if ('end' in turn) return turn;
    const call = turn.calls[0];
    if (call) return { call, step: turn.step, turn };
  }
}

interface StepRun {
  step: ProgramStep;
  program: Program;
  library: ActionLibrary;
  schemaSummary: string;
  outputs: Map<string, string>;
}

/** Carries out one step; its output, or the run's end. */
async function execute(run: RunContext, { step, program, library, schemaSummary, outputs }: StepRun): Promise<string | RunOutcome> {
  const action: { name: string; params: string[]; variadic?: boolean | undefined; definition: string } | NewAction | undefined =
    library.actions.find((candidate) => candidate.name === step.action) ?? program.newActions.find((candidate) => candidate.name === step.action);
  if (!action) return run.finish('failed', `The program calls ${step.action}, which is not defined (a parser bug)`);
  const bindings = step.args.map((arg, index) => ({
    param: action.variadic ? `S${index + 1}` : (action.params[index] ?? `arg${index + 1}`),
    argument: argumentText(arg),
    value: arg.kind === 'db' ? 'the database' : arg.kind === 'string' ? arg.value : (outputs.get(arg.name) ?? ''),
  }));
  const bound = bindings.filter((binding) => binding.argument !== 'DB');
  const readsDatabase = step.args.some((arg) => arg.kind === 'db');
  const record = (kind: 'code' | 'database' | 'reasoning', output: string, queries: string[]): void => {
    actionsCalled.get(run)?.push(step.action);
    run.emit({
      type: 'tool',
      step: run.state.steps,
      node: step.id,
      tool: 'pearl-step',
      input: { index: step.index, action: step.action, kind, description: step.description, args: bindings, queries, output },
      output: [`${step.id} = ${step.action}(${bindings.map((binding) => binding.argument).join(', ')})  [${kind}]`, ...bound.map((binding) => `${binding.param} = ${clip(binding.value)}`), '', output].join('\n'),
    });
  };

  // CONCAT is the workbench's own: the inputs joined, one per line, without a model call.
  if (step.action === 'CONCAT' && library.actions.some((candidate) => candidate.name === 'CONCAT')) {
    const output = bindings.map((binding) => binding.value).join('\n');
    record('code', output, []);
    return output;
  }

  const messages = stepMessages({
    engine: run.engine,
    schemaSummary,
    rules: run.options.rules,
    question: run.options.question,
    id: step.id,
    action: actionLine(action),
    bindings: bound.map((binding) => ({ param: binding.param, value: binding.argument.startsWith('"') ? JSON.stringify(binding.value) : `(the output of ${binding.argument})\n${binding.value}` })),
    description: step.description,
    readsDatabase,
  });
  const evidenceBefore = run.state.evidence.length;
  // Steps may run at once, so the run's evidence list interleaves them: keep this step's queries (by the node their start names).
  const own = new Set<string>();
  const stepEvidence = (): string[] => run.state.evidence.slice(evidenceBefore).filter((id) => own.has(id));
  let queries = 0;
  let lastFailed = false;
  const queriesAllowed = extensionOn(run.options.fidelity, pearlExtensions.queryRetry) ? maxQueriesPerStep : 1;
  for (;;) {
    const offered = !readsDatabase ? [stepOutputTool] : queries === 0 ? [queryTool] : lastFailed && queries < queriesAllowed ? [queryTool, stepOutputTool] : [stepOutputTool];
    const reply = await ask(run, messages, offered, callTokens(run, 'step'));
    if ('end' in reply) return reply.end;
    if (reply.call.tool === stepOutputTool) {
      const output = (reply.call.arguments as { output: string }).output;
      record(readsDatabase ? 'database' : 'reasoning', output, stepEvidence());
      return output;
    }
    // This step's own tool context notes the query ids it hands out: steps run at once, so the run's evidence interleaves them.
    const ended = await run.perform(messages, { ...reply.turn, calls: [reply.call] }, { node: step.id, tools: run.toolContext({ onQueryId: (queryId) => own.add(queryId) }) });
    if (ended) return ended;
    queries++;
    const answered = messages.at(-1)?.content ?? '';
    lastFailed = /(^|\n)(Observation:\n)?(Error \(|Refused:)/.test(answered);
  }
}

/** The answer from every sink, mapped to a candidate and checked (paper Fig. 5; SPECS.md §0.2 decision normaliser). */
async function answer(run: RunContext, program: Program, outputs: Map<string, string>): Promise<RunOutcome> {
  const sinks = sinkSteps(program);
  const text = sinks.map((step) => outputs.get(step.id) ?? '').join('\n');
  const simulation = run.state.lastSimulation ?? (await simulateKnown(run.toolContext(), run.state.steps));
  if (simulation) run.applyStateChanges({ lastSimulation: simulation });
  const candidates = simulation ? simulation.candidates.map((row) => row.candidate) : null;
  const inCode = mapAnswer(text, candidates);
  const base = { answer: text, sinks: sinks.map((step) => step.id), candidates: candidates?.length ?? null };
  if (inCode) {
    run.emit({ type: 'tool', step: run.state.steps, node: 'answer', tool: 'pearl-mapping', input: { ...base, method: inCode.method, decision: inCode.decision, mappingError: false }, output: mappingText(text, base.sinks, inCode.decision, inCode.method) });
    const outcome = await answerTool.perform({ decision: inCode.decision, rationale: text }, { step: run.state.steps }, run.toolContext());
    return 'answer' in outcome ? run.finish('answered', null, outcome.answer) : run.finish('failed', 'The answer could not be recorded');
  }
  const messages = mappingMessages(run.options.question, text, candidates);
  const reply = await ask(run, messages, [answerTool], callTokens(run, 'mapping'));
  if ('end' in reply) return reply.end;
  const proposed = reply.call.arguments as { decision: string; rationale: string };
  const matched = candidates ? mapAnswer(proposed.decision, candidates) : null;
  const decision = matched?.decision ?? proposed.decision;
  const mappingError = candidates !== null && matched === null;
  run.emit({
    type: 'tool',
    step: reply.step,
    node: 'answer',
    tool: 'pearl-mapping',
    input: { ...base, method: 'model', decision, mappingError, ...(mappingError ? { error: `"${proposed.decision}" is none of the ${candidates?.length ?? 0} candidates` } : {}) },
    output: mappingText(text, base.sinks, decision, mappingError ? 'model, not a candidate: a mapping error' : candidates ? 'model' : 'model, no candidate list to check against'),
  });
  const call = { ...reply.call, arguments: { decision, rationale: proposed.rationale } };
  return (await run.perform(messages, { ...reply.turn, calls: [call] }, { node: 'answer' })) ?? run.finish('failed', 'The answer could not be recorded');
}

function mappingText(answerText: string, sinks: string[], decision: string, method: string): string {
  return `Answer (the outputs no step uses: ${sinks.join(', ')}):\n${answerText}\n\nMapped to ${decision} (${method}).`;
}

/**
 * No valid program after every attempt, after an audit entry that says so (category OTH,
 * SPECS.md §2.6): the paper's zero-shot answer, or [ext] (`pearl-planrag-fallback`) PlanRAG
 * on the same run (its log, counters and limits).
 */
async function fallBack(run: RunContext, errors: string[], context: PlannerContext): Promise<RunOutcome> {
  const toPlanRag = extensionOn(run.options.fidelity, pearlExtensions.planRagFallback);
  run.emit({
    type: 'tool',
    step: run.state.steps,
    tool: 'pearl-fallback',
    // `reason` completes "Decided by PlanRAG (Pearl's fallback …)" wherever the decision is shown.
    input: { attempts: maxProgramAttempts, errors, fallback: toPlanRag ? planRag.id : 'zero-shot', reason: `after ${maxProgramAttempts} refused programs`, category: 'OTH' },
    output: toPlanRag
      ? `No valid program after ${maxProgramAttempts} attempts (${errors.length} parser errors): falling back to ${planRag.label}, which answers this question instead.`
      : `No valid program after ${maxProgramAttempts} attempts (${errors.length} parser errors): falling back to a zero-shot answer (the question, the rules and the schema, no queries), as the paper does.`,
  });
  if (!toPlanRag) return zeroShot(run, context);
  const { resume: _resume, ...options } = run.options;
  const remaining = run.limits.maxDurationMs - (Date.now() - run.started);
  const fallback = new RunContext({ ...options, limits: { ...run.limits, maxDurationMs: Math.max(1, remaining) } }, planRag);
  Object.assign(fallback.state, { steps: run.state.steps, tokens: run.state.tokens, queryCount: run.state.queryCount });
  return planRag.run(fallback);
}

/** The paper's fallback: one answer from the question, the rules and the schema, no queries. */
async function zeroShot(run: RunContext, context: PlannerContext): Promise<RunOutcome> {
  const messages = zeroShotMessages(context);
  const reply = await ask(run, messages, [answerTool], callTokens(run, 'mapping'));
  if ('end' in reply) return reply.end;
  return (await run.perform(messages, { ...reply.turn, calls: [reply.call] }, { node: 'zero-shot' })) ?? run.finish('failed', 'The zero-shot answer could not be recorded');
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 197)}…` : flat;
}
