import type { Engine } from '../contract/data';
import { WorkbenchError } from '../contract/errors';
import { chainPlan, type RunEvent, type RunStatus } from '../contract/run';
import type { Connector } from '../connectors/connector';
import type { ChatMessage, ModelProvider, ModelResponse } from '../llm/types';
import { formatObservation } from './observation';
import { systemPrompt, taskMessage } from './prompts';
import { resultDigest } from './result-digest';
import type { ReviewGate } from './review-gate';
import { summarizeSchema } from './schema-summary';
import { parseTextReply, textProtocolInstructions } from './text-protocol';
import { techniques, toolsOffered, type TechniqueId, type ToolName } from './techniques';
import { toolArguments, toolSpec, type ToolArguments } from './tool-specs';
import { dialectNotes } from './dialects';
import type { SimulationResult, SimulationSpec } from '../contract/simulation';
import type { RunSimulator } from '../simulators/run-simulator';
import type { RunWhatIf } from '../whatif/connection-whatif';
import { formatSimulationForModel, verifyDecision } from '../simulators/run-simulation';
import { WHATIF_DEFAULT_TIMEOUT_MS, WHATIF_DEFAULT_TOLERANCE, type WhatIfSpec } from '../contract/whatif';
import { formatWhatIfForModel } from '../whatif/format-for-model';

export type { RunSimulator } from '../simulators/run-simulator';
export type { RunWhatIf } from '../whatif/connection-whatif';

export interface RunLimits {
  /** Model calls allowed. */
  maxSteps: number;
  /** Tokens (prompt + completion, all calls) allowed; null for no limit. */
  maxTokens: number | null;
  maxDurationMs: number;
  /** Consecutive unusable replies tolerated before the run fails. */
  maxRepairs: number;
  queryMaxRows: number;
  queryTimeoutMs: number;
}

export const defaultRunLimits: RunLimits = {
  maxSteps: 20,
  maxTokens: null,
  maxDurationMs: 15 * 60_000,
  maxRepairs: 2,
  queryMaxRows: 1000,
  queryTimeoutMs: 30_000,
};

export interface DecisionRunOptions {
  question: string;
  rules: string;
  technique: TechniqueId;
  connector: Connector;
  connectionDescription: string;
  provider: ModelProvider;
  /** `tools`: native tool calling; `text`: the plain-text protocol (./text-protocol.ts). */
  toolMode: 'tools' | 'text';
  limits: RunLimits;
  gate: ReviewGate;
  /** Receives every event as it happens, in order. */
  emit(event: RunEvent): void;
  signal?: AbortSignal;
  onToken?: (text: string) => void;
  /** Names the query ids of this run (injected for deterministic tests). */
  newQueryId?: () => string;
  simulator?: RunSimulator;
  whatIf?: RunWhatIf;
  /** Continue a run that was interrupted: no run-start, and the loop starts from this state. */
  resume?: ResumeState;
  /** Told where the run stands just before each model call, to be saved for a resume. */
  onCheckpoint?: (state: ResumeState) => void;
}

/** Where a run interrupted by an app stop picks up again (see ./resume-state.ts). */
export interface ResumeState {
  /** The conversation as it stood before the unfinished model call, or null to start it afresh. */
  messages: ChatMessage[] | null;
  planned: boolean;
  plan: string[];
  queries: number;
  steps: number;
  tokens: number;
  evidence: string[];
  queryCount: number;
}

export interface RunOutcome {
  status: Exclude<RunStatus, 'running'>;
  decision: string | null;
  rationale: string | null;
  message: string | null;
  steps: number;
  totalTokens: number;
}

interface Call {
  id: string;
  name: ToolName;
  arguments: unknown;
}

/**
 * One decision run: the model plans (depending on the technique), queries, observes and
 * answers, while every step is emitted as an event. Nothing here throws for the model's or the
 * database's mistakes: they become observations, repair turns, or a run that ends with a clear
 * status and message.
 */
export async function runDecision(options: DecisionRunOptions): Promise<RunOutcome> {
  const technique = techniques[options.technique];
  const { limits, emit, signal } = options;
  const engine: Engine = options.connector.engine;
  const started = Date.now();
  const resume = options.resume;
  let queryCounter = resume?.queryCount ?? 0;
  const newQueryId = options.newQueryId ?? (() => `q${++queryCounter}`);
  const state = {
    planned: resume?.planned ?? false,
    queries: resume?.queries ?? 0,
    plan: resume?.plan ?? ([] as string[]),
    steps: resume?.steps ?? 0,
    tokens: resume?.tokens ?? 0,
    repairs: 0,
  };
  const evidence: string[] = [...(resume?.evidence ?? [])];
  let lastSimulation: SimulationResult | null = null;

  if (!resume) emit({
    type: 'run-start',
    technique: technique.id,
    question: options.question,
    rules: options.rules,
    mode: options.gate.interactive ? 'step' : 'auto',
    connection: { engine, description: options.connectionDescription },
    model: { description: options.provider.description, toolMode: options.toolMode },
    limits: { maxSteps: limits.maxSteps, maxTokens: limits.maxTokens, maxDurationMs: limits.maxDurationMs },
  });

  const finish = (status: RunOutcome['status'], message: string | null, answer?: { decision: string; rationale: string }): RunOutcome => {
    emit({ type: 'run-end', status, message, steps: state.steps, totalTokens: state.tokens });
    return { status, decision: answer?.decision ?? null, rationale: answer?.rationale ?? null, message, steps: state.steps, totalTokens: state.tokens };
  };

  let messages: ChatMessage[];
  if (resume?.messages) {
    messages = resume.messages;
  } else {
    let schemaSummary: string;
    try {
      schemaSummary = summarizeSchema(await options.connector.schema());
    } catch (error) {
      return finish('failed', `Could not read the database schema: ${WorkbenchError.from(error).message}`);
    }
    const context = { technique, engine, schemaSummary, question: options.question, rules: options.rules, whatIfNote: options.whatIf?.note ?? null };
    messages = [
      { role: 'system', content: systemPrompt(context) },
      { role: 'user', content: taskMessage(context) },
    ];
  }
  if (resume) emit({ type: 'run-resume', step: state.steps + 1, messageCount: messages.length });

  for (;;) {
    if (signal?.aborted) return finish('cancelled', 'The run was stopped');
    if (state.steps >= limits.maxSteps) return finish('step-limit', `Stopped after ${limits.maxSteps} model calls without a decision`);
    if (limits.maxTokens !== null && state.tokens >= limits.maxTokens) {
      return finish('token-limit', `Stopped after using ${state.tokens} tokens (limit ${limits.maxTokens}) without a decision`);
    }
    const remainingMs = limits.maxDurationMs - (Date.now() - started);
    if (remainingMs <= 0) return finish('time-limit', `Stopped after ${Math.round(limits.maxDurationMs / 1000)} s without a decision`);

    const offered = toolsOffered(technique, { ...state, canSimulate: options.simulator !== undefined, canWhatIf: options.whatIf !== undefined });
    const step = state.steps + 1;
    options.onCheckpoint?.({
      messages: structuredClone(messages),
      planned: state.planned,
      plan: [...state.plan],
      queries: state.queries,
      steps: state.steps,
      tokens: state.tokens,
      evidence: [...evidence],
      queryCount: queryCounter,
    });
    emit({ type: 'model-request', step, tools: offered, messageCount: messages.length });
    let response: ModelResponse;
    const call = deadlineSignal(remainingMs, signal);
    try {
      response = await options.provider.generate(
        options.toolMode === 'tools'
          ? { messages, tools: offered.map((name) => toolSpec(name, dialectNotes[engine].label)) }
          : { messages: withTextInstructions(messages, offered) },
        { signal: call.signal, ...(options.onToken ? { onToken: options.onToken } : {}) },
      );
    } catch (error) {
      const failure = WorkbenchError.from(error);
      if (call.expired()) return finish('time-limit', `Stopped after ${Math.round(limits.maxDurationMs / 1000)} s without a decision`);
      if (failure.code === 'cancelled') return finish('cancelled', 'The run was stopped');
      return finish('failed', `The model call failed: ${failure.message}`);
    } finally {
      call.dispose();
    }
    state.steps = step;
    state.tokens += response.usage?.totalTokens ?? 0;
    emit({ type: 'model-response', step, content: response.content, toolCalls: response.toolCalls, usage: response.usage, latencyMs: response.latencyMs });

    const { thought, calls, problems } = readReply(response, options.toolMode, offered);
    if (thought) emit({ type: 'thought', step, text: thought });
    if (calls.length === 0) {
      state.repairs++;
      const problem = problems[0] ?? 'the reply contained no action';
      emit({ type: 'model-repair', step, problem });
      if (state.repairs > limits.maxRepairs) {
        return finish('failed', `The model's replies could not be used after ${limits.maxRepairs} repair attempts: ${problem}`);
      }
      messages.push({ role: 'assistant', content: response.content, ...(response.toolCalls.length ? { toolCalls: response.toolCalls } : {}) });
      for (const call of response.toolCalls) messages.push({ role: 'tool', toolCallId: call.id, content: `Not run: ${problem}` });
      messages.push({ role: 'user', content: repairRequest(problem, offered, options.toolMode) });
      continue;
    }
    state.repairs = 0;
    messages.push(
      options.toolMode === 'tools'
        ? { role: 'assistant', content: response.content, toolCalls: response.toolCalls }
        : { role: 'assistant', content: response.content },
    );

    const replies: string[] = [];
    const answerTool = (id: string, content: string): void => {
      if (options.toolMode === 'tools') messages.push({ role: 'tool', toolCallId: id, content });
      else replies.push(content);
    };
    // Calls the model made but the protocol does not allow now still need an answer.
    for (const call of response.toolCalls) {
      if (!calls.some((accepted) => accepted.id === call.id)) answerTool(call.id, `Not run: ${problems.join('; ') || 'not available now'}`);
    }

    for (const call of calls) {
      if (call.name === 'plan') {
        const { steps } = toolArguments.plan.parse(call.arguments);
        state.plan = steps;
        state.planned = true;
        emit({ type: 'plan', step, steps, nodes: chainPlan(steps) });
        answerTool(call.id, 'Plan recorded. Carry it out one query at a time.');
      } else if (call.name === 'replan') {
        const proposed = toolArguments.replan.parse(call.arguments);
        const asked = options.gate.interactive; // read before: the analyst may resume (switch to auto) with this answer
        const decision = await options.gate.review({ subject: 'replan', step, steps: proposed.steps, reason: proposed.reason }, signal);
        if (asked) recordReview(emit, step, 'replan', proposed.steps.join('\n'), decision);
        if (decision.action === 'stop') return finish('stopped', 'The analyst stopped the run to continue by hand');
        if (decision.action === 'skip') {
          answerTool(call.id, `The analyst kept the current plan${decision.note ? `: ${decision.note}` : ''}. Continue with it.`);
          continue;
        }
        const steps = decision.action === 'edit' && decision.steps?.length ? decision.steps : proposed.steps;
        emit({ type: 'replan', step, previous: state.plan, steps, nodes: chainPlan(steps), reason: proposed.reason, author: decision.action === 'edit' ? 'analyst' : 'model' });
        state.plan = steps;
        const note = decision.action === 'note' ? ` Analyst note: ${decision.note}` : '';
        answerTool(call.id, `Plan updated${decision.action === 'edit' ? ' by the analyst' : ''}: ${steps.map((text, index) => `${index + 1}. ${text}`).join(' ')}.${note}`);
      } else if (call.name === 'query') {
        const { query } = toolArguments.query.parse(call.arguments);
        const asked = options.gate.interactive;
        const decision = await options.gate.review({ subject: 'query', step, query }, signal);
        if (asked) recordReview(emit, step, 'query', query, decision);
        if (decision.action === 'stop') return finish('stopped', 'The analyst stopped the run to continue by hand');
        if (decision.action === 'skip') {
          emit({ type: 'observation', step, queryId: null, text: 'Skipped by the analyst.' });
          answerTool(call.id, `The analyst skipped this query${decision.note ? `: ${decision.note}` : ''}. Continue without it.`);
          state.queries++;
          continue;
        }
        const edited = decision.action === 'edit' && decision.query?.trim() ? decision.query.trim() : null;
        const observation = await runQuery(options, { step, query: edited ?? query, author: edited ? 'analyst' : 'model', newQueryId, evidence });
        state.queries++;
        const prefix = edited ? `The analyst replaced your query with:\n${edited}\n\n` : '';
        const note = decision.action === 'note' ? `\n\nAnalyst note: ${decision.note}` : '';
        answerTool(call.id, `${prefix}${observation}${note}`);
      } else if (call.name === 'simulate') {
        const outcome = await simulateCall(options, step, toolArguments.simulate.parse(call.arguments));
        if (outcome.result) lastSimulation = outcome.result;
        answerTool(call.id, outcome.text);
      } else if (call.name === 'whatif') {
        answerTool(call.id, await whatIfCall(options, step, toolArguments.whatif.parse(call.arguments)));
      } else {
        const answer = toolArguments.answer.parse(call.arguments);
        const check = lastSimulation ?? (await simulateKnown(options, step));
        emit({
          type: 'decision',
          step,
          decision: answer.decision,
          rationale: answer.rationale,
          evidence: [...evidence],
          verification: check ? verifyDecision(answer.decision, check) : null,
        });
        return finish('answered', null, answer);
      }
    }
    if (options.toolMode === 'text') messages.push({ role: 'user', content: replies.map((reply) => `Observation:\n${reply}`).join('\n\n') });
  }
}

async function runQuery(
  options: DecisionRunOptions,
  context: { step: number; query: string; author: 'model' | 'analyst'; newQueryId: () => string; evidence: string[] },
): Promise<string> {
  const queryId = context.newQueryId();
  options.emit({ type: 'query-start', step: context.step, queryId, query: context.query, author: context.author });
  try {
    const result = await options.connector.query(context.query, {
      maxRows: options.limits.queryMaxRows,
      timeoutMs: options.limits.queryTimeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    options.emit({ type: 'query-end', step: context.step, queryId, result, error: null, digest: resultDigest(result) });
    const text = formatObservation(result);
    options.emit({ type: 'observation', step: context.step, queryId, text });
    context.evidence.push(queryId);
    return text;
  } catch (caught) {
    const error = WorkbenchError.from(caught);
    options.emit({ type: 'query-end', step: context.step, queryId, result: null, error: error.toJSON(), digest: null });
    const text =
      error.code === 'read-only'
        ? `Refused: the connection is read-only, so only queries that read data can run. (${error.message})`
        : `Error (${error.code}): ${error.message}. Correct the query and try again.`;
    options.emit({ type: 'observation', step: context.step, queryId, text });
    return text;
  }
}

type SimulateArguments = { candidates?: string[]; country?: string; home?: string; goods?: string };

function specFor(simulator: RunSimulator, args: Omit<SimulateArguments, 'candidates'>): SimulationSpec | string {
  if (simulator.scenario === 'locating') {
    const country = args.country ?? simulator.known.country;
    const home = args.home ?? simulator.known.home;
    return country && home ? { scenario: 'locating', country, home, rules: simulator.rules } : 'give the country and its home trade node ("country", "home")';
  }
  const goods = args.goods ?? simulator.known.goods;
  return goods ? { scenario: 'building', goods, rules: simulator.rules } : 'give the goods whose price should fall ("goods")';
}

async function simulateCall(options: DecisionRunOptions, step: number, args: SimulateArguments): Promise<{ text: string; result: SimulationResult | null }> {
  const simulator = options.simulator;
  if (!simulator) return { text: 'No simulator fits this database.', result: null };
  const spec = specFor(simulator, args);
  if (typeof spec === 'string') return { text: `Not simulated: ${spec}.`, result: null };
  try {
    const result = await simulator.run(spec);
    options.emit({ type: 'simulation', step, requested: args.candidates ?? null, result });
    const unknown = (args.candidates ?? []).filter((name) => !result.candidates.some((row) => row.candidate.toLowerCase() === name.toLowerCase()));
    const shown = args.candidates?.length
      ? { ...result, candidates: result.candidates.filter((row) => row.rank === 1 || args.candidates?.some((name) => name.toLowerCase() === row.candidate.toLowerCase())) }
      : result;
    return { text: `${formatSimulationForModel(shown)}${unknown.length ? `\nNot candidates here: ${unknown.join(', ')}` : ''}`, result };
  } catch (error) {
    return { text: `Simulation failed: ${WorkbenchError.from(error).message}`, result: null };
  }
}

async function whatIfCall(options: DecisionRunOptions, step: number, args: ToolArguments<'whatif'>): Promise<string> {
  const sandbox = options.whatIf;
  if (!sandbox) return 'What-if experiments are not available on this database.';
  const spec: WhatIfSpec = {
    change: args.change,
    objective: args.objective,
    direction: args.direction,
    tolerance: WHATIF_DEFAULT_TOLERANCE,
    timeoutMs: Math.min(WHATIF_DEFAULT_TIMEOUT_MS, options.limits.queryTimeoutMs),
    ...(args.candidates ? { candidates: args.candidates } : { candidatesQuery: args.candidatesQuery ?? '' }),
  };
  try {
    const result = await sandbox.run(spec, options.signal);
    options.emit({ type: 'whatif', step, spec, result, error: null });
    return formatWhatIfForModel(result);
  } catch (caught) {
    const error = WorkbenchError.from(caught);
    options.emit({ type: 'whatif', step, spec, result: null, error: error.toJSON() });
    return `What-if failed (${error.code}): ${error.message}. Correct the change, the objective or the candidates and try again.`;
  }
}

/** When the question's parameters are known, the decision is checked even if the model never simulated. */
async function simulateKnown(options: DecisionRunOptions, step: number): Promise<SimulationResult | null> {
  const simulator = options.simulator;
  if (!simulator) return null;
  const spec = specFor(simulator, {});
  if (typeof spec === 'string') return null;
  try {
    const result = await simulator.run(spec);
    options.emit({ type: 'simulation', step, requested: null, result });
    return result;
  } catch {
    return null; // verification is a bonus; a failing simulator must not cost the decision
  }
}

/** The calls a reply makes, validated; what was wrong with the rest. */
function readReply(response: ModelResponse, toolMode: 'tools' | 'text', offered: ToolName[]): { thought: string | null; calls: Call[]; problems: string[] } {
  const problems: string[] = [];
  const raw: { id: string; name: string; arguments: unknown }[] = [];
  let thought: string | null;
  if (toolMode === 'text') {
    const parsed = parseTextReply(response.content);
    thought = parsed.thought;
    parsed.calls.forEach((call, index) => raw.push({ id: `text-${index}`, name: call.name, arguments: call.arguments }));
    if (parsed.calls.length === 0) problems.push('the reply follows none of the reply forms');
  } else {
    thought = response.content.trim() || null;
    for (const call of response.toolCalls) {
      try {
        raw.push({ id: call.id, name: call.name, arguments: JSON.parse(call.arguments || '{}') as unknown });
      } catch {
        problems.push(`the arguments of ${call.name} are not valid JSON`);
      }
    }
    if (response.toolCalls.length === 0) problems.push('the reply called no tool');
  }
  const calls: Call[] = [];
  for (const call of raw) {
    if (!offered.includes(call.name as ToolName)) {
      problems.push(`${call.name} is not available now (available: ${offered.join(', ')})`);
      continue;
    }
    const name = call.name as ToolName;
    const check = toolArguments[name].safeParse(call.arguments);
    if (!check.success) {
      problems.push(`invalid arguments for ${name}: ${check.error.issues.map((issue) => `${issue.path.join('.') || 'arguments'} ${issue.message}`).join('; ')}`);
      continue;
    }
    calls.push({ id: call.id, name, arguments: check.data });
    if (name === 'answer') break; // nothing after the final answer is carried out
  }
  return { thought, calls, problems };
}

function repairRequest(problem: string, offered: ToolName[], toolMode: 'tools' | 'text'): string {
  return toolMode === 'tools'
    ? `Your last reply could not be used: ${problem}. Reply by calling exactly one of these tools: ${offered.join(', ')}.`
    : `Your last reply could not be used: ${problem}. Reply again using exactly one of the reply forms.\n\n${textProtocolInstructions(offered)}`;
}

function withTextInstructions(messages: ChatMessage[], offered: ToolName[]): ChatMessage[] {
  const [system, ...rest] = messages;
  if (!system) return messages;
  return [{ role: 'system', content: `${system.content}\n\n${textProtocolInstructions(offered)}` }, ...rest];
}

function recordReview(emit: (event: RunEvent) => void, step: number, subject: 'query' | 'replan', original: string, decision: Awaited<ReturnType<ReviewGate['review']>>): void {
  const edited = decision.action === 'edit' ? (decision.query ?? decision.steps?.join('\n') ?? null) : null;
  const note = decision.action === 'note' || decision.action === 'skip' ? (decision.note ?? null) : null;
  emit({ type: 'analyst-review', step, action: decision.action, subject, original, edited, note });
}

/** An abort signal for one model call: the run's own signal, or the run's remaining time running out. */
function deadlineSignal(remainingMs: number, outer: AbortSignal | undefined): { signal: AbortSignal; expired(): boolean; dispose(): void } {
  const controller = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort();
  }, remainingMs);
  const forward = (): void => controller.abort();
  outer?.addEventListener('abort', forward, { once: true });
  if (outer?.aborted) controller.abort();
  return {
    signal: controller.signal,
    expired: () => expired,
    dispose: () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', forward);
    },
  };
}
