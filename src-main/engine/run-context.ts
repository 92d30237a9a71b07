import type { Engine } from '../contract/data';
import { WorkbenchError } from '../contract/errors';
import type { RunEvent, RunStatus } from '../contract/run';
import type { DecisionOrigin } from '../contract/produced-by';
import type { SimulationResult } from '../contract/simulation';
import type { ForecastStore } from './techniques/dellma/forecast-store';
import type { RunDocument } from '../contract/documents';
import type { ResolvedFidelity } from '../contract/fidelity';
import type { Connector } from '../connectors/connector';
import type { ChatMessage, ModelProvider, ModelRequest, ModelResponse } from '../llm/types';
import type { RunSimulator } from '../simulators/run-simulator';
import type { RunWhatIf } from '../whatif/connection-whatif';
import type { RunScenarios } from '../whatif/run-scenarios';
import { dialectNotes } from './dialects';
import { systemPrompt, taskMessage } from './prompts';
import type { ReviewGate } from './review-gate';
import type { ResumeState } from './resume-state';
import { fitToContext } from './context-budget';
import { sampleTables, summarizeSchema } from './schema-summary';
import type { TechniqueDefinition, TechniqueHost } from './techniques/technique';
import { parseTextReply, textProtocolInstructions } from './text-protocol';
import { registeredTools, toolSpecFor } from './tools/registry';
import type { ToolDefinition } from './tools/tool';
import type { ToolContext, ToolMemo, ToolStateChanges } from './tools/tool-context';
import type { KeptOutputs } from './techniques/pearl/rerun';

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
  /**
   * The model's context window in tokens; when a prompt nears it, old observations are
   * summarised (./context-budget.ts). Null when unknown: nothing is summarised.
   */
  contextTokens: number | null;
}

export const defaultRunLimits: RunLimits = {
  maxSteps: 20,
  maxTokens: null,
  maxDurationMs: 15 * 60_000,
  maxRepairs: 2,
  queryMaxRows: 1000,
  queryTimeoutMs: 30_000,
  contextTokens: null,
};

/** The same failing call (tool and arguments) this many times in a row is pointed out to the model… */
const repeatWarnAt = 2;
/** …and this many times ends the run. */
const repeatStopAt = 3;

/** In the plain-text protocol the model stops before it could invent the engine's answer. */
export const textStopSequences = ['Observation:'];

export interface DecisionRunOptions {
  question: string;
  rules: string;
  /** A technique id of the registry (./techniques/registry.ts). */
  technique: string;
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
  /** Why the decision will not be checked, decided before the run (simulators/check-plan.ts); absent: checked when it can be. */
  uncheckedReason?: string;
  whatIf?: RunWhatIf;
  /** [ext] DeLLMa's exact outcomes: the what-if sandbox on the run's data, whether or not the model is offered `whatif`. */
  scenarios?: RunScenarios;
  /** A learned playbook for techniques that follow one (AutoPlan); placed between the task and the question. */
  playbook?: string;
  /** A program the analyst wrote or edited (Pearl's program cell): run it instead of planning one. */
  program?: string;
  /** The playbook version's hash (from the workspace or a version file); the run log records it. */
  playbookVersion?: string;
  /** Pearl, re-running one step: the outputs of the run it came from, kept for every step that neither is that step nor depends on it. */
  keptOutputs?: KeptOutputs;
  /** The technique's own options (its `options.schema`, checked when the run was started; techniques/technique-options.ts); absent: its defaults. */
  techniqueOptions?: Record<string, unknown>;
  /** What the process lends the technique: the app's workspace libraries, the CLI's files (techniques/technique.ts). */
  host?: TechniqueHost;
  /** A stable id of the question (a DQA question's id), when the run has one: DeLLMa derives its sampling seed from it (a question without one keeps problem 1). */
  questionId?: string;
  /** DeLLMa: where the model's forecasts are kept across runs (app runs: the workspace); absent: none. */
  forecastStore?: ForecastStore;
  /** Documents the analyst attached (the notebook's, or `dwb run --document`): DeLLMa reads them into its context; other techniques ignore them. */
  documents?: RunDocument[];
  /**
   * The run's fidelity to its paper, resolved (contract/fidelity.ts): the temperature of its
   * turns, per-call token limits and which extensions are on. Absent (older callers): the
   * product's behaviour, every extension on.
   */
  fidelity?: ResolvedFidelity;
  /** Continue a run that was interrupted: no run-start, and the technique starts from this state. */
  resume?: ResumeState;
  /** A new run's technique-specific start, read by the technique (a Plan*RAG node re-run, techniques/plan-dag/rerun.ts). */
  seed?: unknown;
  /** Told where the run stands just before each model call, to be saved for a resume. */
  onCheckpoint?: (state: ResumeState) => void;
}

export type { ResumeState } from './resume-state';

export interface RunOutcome {
  status: Exclude<RunStatus, 'running'>;
  decision: string | null;
  rationale: string | null;
  message: string | null;
  steps: number;
  totalTokens: number;
  /** Who made the decision (the technique, a fallback, a copied ranking); set by the run set-up from the log's record. */
  decidedBy?: DecisionOrigin;
}

/** A validated call of an offered tool. */
export interface AcceptedCall {
  id: string;
  tool: ToolDefinition;
  arguments: unknown;
}

/** One model turn: the calls to carry out, or that the run ended (a limit, a stop, a failure). */
export type Turn = { calls: AcceptedCall[]; step: number; response: ModelResponse; problems: string[] } | { end: RunOutcome };

/** What a run keeps as it goes: saved with every checkpoint (see ResumeState) or rebuilt on resume. */
export interface RunState {
  planned: boolean;
  plan: string[];
  queries: number;
  steps: number;
  tokens: number;
  repairs: number;
  evidence: string[];
  queryCount: number;
  lastSimulation: SimulationResult | null;
  /** Answers in a row refused by a tool's check (a decision that is no candidate). */
  refusedAnswers: number;
  /** The last failing call (tool name and arguments) and how often in a row it failed. */
  lastFailure: { key: string; count: number } | null;
  /** Prompt tokens per character of the last request, as the model counted them (for the context budget). */
  tokensPerChar: number | null;
  /** The technique's own state, saved with every checkpoint. */
  technique: unknown;
}

/**
 * The shared turn executor every technique runs on: it holds the run's counters and limits and
 * knows how to ask the model (`turn`: checkpoint, request, validate, repair) and how to carry
 * out and record what the model asked for (`perform`). A technique decides which conversations
 * to hold, which tools to offer when, and when the run is over.
 */
export class RunContext {
  readonly engine: Engine;
  readonly started = Date.now();
  /** The run's counters, plan, evidence and the technique's saved state: read by all, written only through this class. */
  get state(): Readonly<RunState> {
    return this.current;
  }
  private readonly current: RunState;
  readonly newQueryId: () => string;
  /** The highest step number handed to a model call so far (calls may be in flight at once). */
  private issuedSteps = 0;
  /** How the run ended, once `finish` was called. */
  private outcome: RunOutcome | null = null;
  /** What the run's tools keep between calls, shared by every tool context of the run. */
  private readonly toolMemo: ToolMemo = {};
  /** The tool context calls get unless a technique asks for its own (`toolContext`). */
  private defaultTools: ToolContext | null = null;

  constructor(
    readonly options: DecisionRunOptions,
    readonly technique: TechniqueDefinition,
  ) {
    this.engine = options.connector.engine;
    const resume = options.resume;
    this.current = {
      planned: resume?.planned ?? false,
      plan: resume?.plan ?? [],
      queries: resume?.queries ?? 0,
      steps: resume?.steps ?? 0,
      tokens: resume?.tokens ?? 0,
      repairs: 0,
      evidence: [...(resume?.evidence ?? [])],
      queryCount: resume?.queryCount ?? 0,
      lastSimulation: null,
      refusedAnswers: 0,
      lastFailure: null,
      tokensPerChar: null,
      technique: resume?.technique,
    };
    this.newQueryId = options.newQueryId ?? (() => `q${++this.current.queryCount}`);
  }

  get limits(): RunLimits {
    return this.options.limits;
  }

  get signal(): AbortSignal | undefined {
    return this.options.signal;
  }

  emit(event: RunEvent): void {
    this.options.emit(event);
  }

  /**
   * Ends the run: emits run-end and returns the outcome. A run ends once: calls in flight at the
   * same time (parallel steps, a plan graph's level) may each reach an end — two model calls
   * failing at the same instant — and every later finish returns the first outcome unchanged,
   * without logging another end.
   */
  finish(status: RunOutcome['status'], message: string | null, answer?: { decision: string; rationale: string }): RunOutcome {
    if (this.outcome) return this.outcome;
    const { steps, tokens } = this.current;
    const outcome: RunOutcome = { status, decision: answer?.decision ?? null, rationale: answer?.rationale ?? null, message, steps, totalTokens: tokens };
    this.outcome = outcome;
    this.emit({ type: 'run-end', status, message, steps, totalTokens: tokens });
    return outcome;
  }

  /** The run's outcome once it has ended (see `finish`), null while it goes on. */
  get ended(): RunOutcome | null {
    return this.outcome;
  }

  /**
   * What a tool sees of this run (tools/tool-context.ts): the connection, simulator, sandbox,
   * limits, signal, gate, a recorder, and a live read-only view of the plan, evidence and last
   * simulation. `onQueryId` is told each query id handed out through it (Pearl keeps each
   * step's own queries apart while steps run at once). Without options, one context per run.
   */
  toolContext(options: { onQueryId?: (queryId: string) => void } = {}): ToolContext {
    if (!options.onQueryId && this.defaultTools) return this.defaultTools;
    const { current: state } = this;
    const onQueryId = options.onQueryId;
    const tools: ToolContext = {
      engine: this.engine,
      connector: this.options.connector,
      simulator: this.options.simulator ?? null,
      uncheckedReason: this.options.uncheckedReason ?? null,
      whatIf: this.options.whatIf ?? null,
      gate: this.options.gate,
      fidelity: this.options.fidelity,
      limits: this.limits,
      signal: this.signal,
      known: {
        get plan() {
          return state.plan;
        },
        get evidence() {
          return state.evidence;
        },
        get lastSimulation() {
          return state.lastSimulation;
        },
      },
      emit: (event) => this.emit(event),
      newQueryId: () => {
        const queryId = this.newQueryId();
        onQueryId?.(queryId);
        return queryId;
      },
      memo: this.toolMemo,
    };
    if (!onQueryId) this.defaultTools = tools;
    return tools;
  }

  /**
   * Applies what a tool's call or a technique's own step changed (a tool outcome's
   * `stateChanges`, a query's evidence, a plan a technique drew): nothing else writes the run's
   * state, so its counters, plan and evidence have one writer.
   */
  applyStateChanges(changes: ToolStateChanges | undefined): void {
    if (!changes) return;
    const { current: state } = this;
    if (changes.plan) state.plan = changes.plan;
    if (changes.planned) state.planned = true;
    if (changes.queries) state.queries += changes.queries;
    if (changes.evidence) state.evidence.push(...changes.evidence);
    if (changes.lastSimulation) state.lastSimulation = changes.lastSimulation;
  }

  /** Keeps the technique's own state, saved with the next checkpoint so a resumed run starts from it. */
  saveTechniqueState(technique: unknown): void {
    this.current.technique = technique;
  }

  /** The outcome when the run must stop before another model call (stopped, out of steps, tokens or time); null to go on. */
  limitReached(): RunOutcome | null {
    const over = this.overLimit();
    return over ? this.finish(over.status, over.message) : null;
  }

  /**
   * Which limit a further model call would break, without ending the run: a technique with
   * calls in flight at once (a plan graph's level) lets them settle before it finishes.
   * Calls already started count against the step limit.
   */
  overLimit(): { status: RunOutcome['status']; message: string } | null {
    const { limits } = this;
    if (this.signal?.aborted) return { status: 'cancelled', message: 'The run was stopped' };
    if (Math.max(this.current.steps, this.issuedSteps) >= limits.maxSteps) return { status: 'step-limit', message: `Stopped after ${limits.maxSteps} model calls without a decision` };
    if (limits.maxTokens !== null && this.current.tokens >= limits.maxTokens) {
      return { status: 'token-limit', message: `Stopped after using ${this.current.tokens} tokens (limit ${limits.maxTokens}) without a decision` };
    }
    if (this.remainingMs() <= 0) return { status: 'time-limit', message: this.timeLimitMessage() };
    return null;
  }

  /**
   * The opening of a conversation about the run's question: the system prompt (role, the
   * technique's method, the database and its dialect) and the task. A resumed run gets the
   * conversation it had saved.
   */
  async openConversation(): Promise<ChatMessage[] | RunOutcome> {
    if (this.options.resume?.messages) return this.options.resume.messages;
    let schemaSummary: string;
    try {
      const schema = await this.options.connector.schema();
      const samples = await sampleTables(this.options.connector, schema, this.options.question);
      schemaSummary = summarizeSchema(schema, undefined, { samples, question: this.options.question });
    } catch (error) {
      return this.finish('failed', `Could not read the database schema: ${WorkbenchError.from(error).message}`);
    }
    const context = {
      method: this.technique.method,
      engine: this.engine,
      schemaSummary,
      question: this.options.question,
      rules: this.options.rules,
      whatIfNote: this.options.whatIf?.note ?? null,
      playbook: this.technique.usesPlaybook ? (this.options.playbook ?? null) : null,
    };
    return [
      { role: 'system', content: systemPrompt(context) },
      { role: 'user', content: taskMessage(context) },
    ];
  }

  /**
   * One model call on `messages` with `offered` tools: saves the checkpoint, asks, records the
   * response and the thought, validates the calls. An unusable reply is answered with a repair
   * request (bounded by `maxRepairs`) and comes back with no calls; the assistant message is
   * appended to `messages` either way.
   */
  async turn(messages: ChatMessage[], offered: ToolDefinition[], call: { maxTokens?: number } = {}): Promise<Turn> {
    const { options, limits } = this;
    options.onCheckpoint?.(this.checkpoint(messages));
    fitToContext(messages, limits.contextTokens, this.current.tokensPerChar);
    const request: ModelRequest =
      options.toolMode === 'tools'
        ? {
            messages,
            tools: await Promise.all(
              offered.map(async (tool) => {
                const spec = toolSpecFor(tool, dialectNotes[this.engine].label);
                return tool.narrowSchema ? { ...spec, parameters: await tool.narrowSchema(spec.parameters, this.toolContext()) } : spec;
              }),
            ),
            // Every turn must call one of the offered tools: providers that can hold the model to
            // it (a grammar, tool_choice "required") do; the others fall back to repair turns.
            output: { kind: 'tool-call', required: true },
            ...this.sampling(call),
          }
        : { messages: withTextInstructions(messages, offered), stop: textStopSequences, ...this.sampling(call) };
    const asked = await this.ask(request, { tools: offered.map((tool) => tool.name), messageCount: messages.length });
    if ('failure' in asked) {
      if (asked.failure === 'time-limit') return { end: this.timeLimit() };
      if (asked.failure === 'cancelled') return { end: this.finish('cancelled', 'The run was stopped') };
      return { end: this.finish('failed', asked.message) };
    }
    const { step, response } = asked;

    const { thought, calls, problems } = readReply(response, options.toolMode, offered);
    if (thought) this.emit({ type: 'thought', step, text: thought });
    if (calls.length === 0) {
      this.current.repairs++;
      const problem = problems[0] ?? 'the reply contained no action';
      this.emit({ type: 'model-repair', step, problem });
      if (this.current.repairs > limits.maxRepairs) {
        return { end: this.finish('failed', `The model's replies could not be used after ${limits.maxRepairs} repair attempts: ${problem}`) };
      }
      // The unusable reply itself stays out of the history: a note stands for it, so a rambling
      // model's prompts do not grow with every failed turn.
      messages.push({ role: 'assistant', content: unusableNote(response) });
      messages.push({ role: 'user', content: repairRequest(problem, offered, options.toolMode) });
      return { calls: [], step, response, problems };
    }
    this.current.repairs = 0;
    messages.push(
      options.toolMode === 'tools'
        ? { role: 'assistant', content: response.content, toolCalls: response.toolCalls }
        : { role: 'assistant', content: response.content },
    );
    return { calls, step, response, problems };
  }

  /**
   * One model call, recorded (`model-request`, `model-response`, step and token counters) but
   * neither validated nor repaired, and never ending the run: the caller decides what a failure
   * means. Safe to call several times at once (a plan graph's level): each call gets its own step
   * number when it starts. `node` names the plan node the call works for, `purpose` what it is
   * for (e.g. `plan`, `query`, `answer`); both go into the events.
   */
  async ask(
    request: ModelRequest,
    about: { tools?: string[]; messageCount?: number; node?: string; purpose?: string } = {},
  ): Promise<{ step: number; response: ModelResponse } | { failure: 'time-limit' | 'cancelled' | 'failed'; message: string; step: number }> {
    const { options } = this;
    const step = Math.max(this.current.steps, this.issuedSteps) + 1;
    this.issuedSteps = step;
    const at = { ...(about.node ? { node: about.node } : {}), ...(about.purpose ? { purpose: about.purpose } : {}) };
    this.emit({ type: 'model-request', step, tools: about.tools ?? [], messageCount: about.messageCount ?? request.messages.length, ...at });
    let response: ModelResponse;
    // A call that names no temperature of its own (Plan*RAG's) is sent at the run's (paper fidelity: 0).
    const temperature = this.runTemperature();
    const sent = request.temperature === undefined && temperature !== undefined ? { ...request, temperature } : request;
    const call = deadlineSignal(this.remainingMs(), this.signal);
    try {
      response = await options.provider.generate(sent, { signal: call.signal, ...(options.onToken ? { onToken: options.onToken } : {}) });
    } catch (error) {
      const failure = WorkbenchError.from(error);
      if (call.expired()) return { failure: 'time-limit', message: this.timeLimitMessage(), step };
      if (failure.code === 'cancelled') return { failure: 'cancelled', message: 'The run was stopped', step };
      return { failure: 'failed', message: `The model call failed: ${failure.message}`, step };
    } finally {
      call.dispose();
    }
    this.current.steps = Math.max(this.current.steps, step);
    this.current.tokens += response.usage?.totalTokens ?? 0;
    const promptChars = request.messages.reduce((sum, message) => sum + message.content.length, 0);
    if (response.usage && response.usage.promptTokens > 0 && promptChars > 0) this.current.tokensPerChar = response.usage.promptTokens / promptChars;
    this.emit({
      type: 'model-response',
      step,
      content: response.content,
      toolCalls: response.toolCalls,
      usage: response.usage,
      latencyMs: response.latencyMs,
      ...(response.constrained ? { constrained: response.constrained } : {}),
      ...(response.model ? { model: response.model } : {}),
      ...(about.node ? { node: about.node } : {}),
    });
    return { step, response };
  }

  /**
   * Carries out a turn's calls in order and answers each in `messages` (tool messages, or one
   * `Observation:` message in the text protocol). Returns the run's outcome when a call ended
   * it (the final answer, the analyst's stop), null to go on. Tools get `context.tools` (the
   * run's own tool context by default) and what they change is applied here.
   */
  async perform(messages: ChatMessage[], turn: Extract<Turn, { calls: AcceptedCall[] }>, context: { node?: string; tools?: ToolContext } = {}): Promise<RunOutcome | null> {
    const tools = context.tools ?? this.toolContext();
    const replies: string[] = [];
    const answerTool = (id: string, content: string): void => {
      if (this.options.toolMode === 'tools') messages.push({ role: 'tool', toolCallId: id, content });
      else replies.push(content);
    };
    // Calls the model made but the protocol does not allow now still need an answer.
    for (const toolCall of turn.response.toolCalls) {
      if (!turn.calls.some((accepted) => accepted.id === toolCall.id)) answerTool(toolCall.id, `Not run: ${turn.problems.join('; ') || 'not available now'}`);
    }
    for (const call of turn.calls) {
      const refused = call.tool.check ? await call.tool.check(call.arguments, tools) : null;
      if (refused) {
        this.current.refusedAnswers++;
        this.emit({ type: 'model-repair', step: turn.step, problem: refused });
        if (this.current.refusedAnswers > this.limits.maxRepairs) {
          return this.finish('failed', `The model's ${call.tool.name} could not be used after ${this.limits.maxRepairs} attempts: ${refused}`);
        }
        answerTool(call.id, `Not accepted: ${refused}.`);
        continue;
      }
      const outcome = await call.tool.perform(call.arguments, { step: turn.step, ...(context.node ? { node: context.node } : {}) }, tools);
      if ('reply' in outcome) this.applyStateChanges(outcome.stateChanges);
      if ('stop' in outcome) return this.finish('stopped', outcome.stop);
      if ('answer' in outcome) return this.finish('answered', null, outcome.answer);
      const repeated = this.noteFailure(call, outcome.failed === true);
      if (repeated >= repeatStopAt) {
        return this.finish('failed', `Stopped: the model made the same failing ${call.tool.name} call ${repeated} times in a row (${clip(JSON.stringify(call.arguments), 200)})`);
      }
      answerTool(
        call.id,
        repeated >= repeatWarnAt
          ? `${outcome.reply}\n\nThis exact ${call.tool.name} call has now failed ${repeated} times in a row. Do not repeat it: change it or take another action; the run ends if it fails once more.`
          : outcome.reply,
      );
    }
    if (this.options.toolMode === 'text') {
      // What was not taken from the reply (an answer given together with an action) is said in the same message.
      const notes = turn.problems.length > 0 ? [`Note: ${turn.problems.join('; ')}.`] : [];
      messages.push({ role: 'user', content: [...replies.map((reply) => `Observation:\n${reply}`), ...notes].join('\n\n') });
    }
    return null;
  }

  /** Counts the same failing call in a row (tool and arguments); returns how often it has failed so, 0 after a success. */
  private noteFailure(call: AcceptedCall, failed: boolean): number {
    if (!failed) {
      this.current.lastFailure = null;
      return 0;
    }
    const key = `${call.tool.name} ${JSON.stringify(call.arguments)}`;
    const count = this.current.lastFailure?.key === key ? this.current.lastFailure.count + 1 : 1;
    this.current.lastFailure = { key, count };
    return count;
  }

  /** What a resume needs, as it stands before the next model call on `messages`. */
  checkpoint(messages: ChatMessage[] | null): ResumeState {
    const { current: state } = this;
    return {
      messages: messages ? structuredClone(messages) : null,
      planned: state.planned,
      plan: [...state.plan],
      queries: state.queries,
      steps: state.steps,
      tokens: state.tokens,
      evidence: [...state.evidence],
      queryCount: state.queryCount,
      ...(state.technique === undefined ? {} : { technique: structuredClone(state.technique) }),
    };
  }

  /**
   * The sampling of one turn: the run's temperature when its fidelity sets one (the paper's 0,
   * or `--temperature`), else the technique's own (AutoPlan decodes greedily), else the model
   * settings'; and the call's token limit when the technique gives one.
   */
  private sampling(call: { maxTokens?: number } = {}): { temperature?: number; maxTokens?: number } {
    const temperature = this.runTemperature();
    return { ...(temperature === undefined ? {} : { temperature }), ...(call.maxTokens ? { maxTokens: call.maxTokens } : {}) };
  }

  /** The run's temperature: its fidelity's when that sets one, else the technique's own; undefined: the model settings'. */
  private runTemperature(): number | undefined {
    return this.options.fidelity?.temperature ?? this.technique.temperature;
  }

  private remainingMs(): number {
    return this.limits.maxDurationMs - (Date.now() - this.started);
  }

  private timeLimit(): RunOutcome {
    return this.finish('time-limit', this.timeLimitMessage());
  }

  private timeLimitMessage(): string {
    return `Stopped after ${Math.round(this.limits.maxDurationMs / 1000)} s without a decision`;
  }
}

/** What stands in the history for a reply that could not be used. */
function unusableNote(response: ModelResponse): string {
  const size = response.content.length + response.toolCalls.reduce((sum, call) => sum + call.name.length + call.arguments.length, 0);
  return `(An unusable reply of ${size} characters was left out here.)`;
}

function clip(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length)}…` : text;
}

/** The calls a reply makes, validated; what was wrong with the rest. */
function readReply(response: ModelResponse, toolMode: 'tools' | 'text', offered: ToolDefinition[]): { thought: string | null; calls: AcceptedCall[]; problems: string[] } {
  const problems: string[] = [];
  const raw: { id: string; name: string; arguments: unknown }[] = [];
  let thought: string | null;
  if (toolMode === 'text') {
    const parsed = parseTextReply(response.content, [...new Set([...registeredTools(), ...offered])]);
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
  let calls: AcceptedCall[] = [];
  for (const call of raw) {
    const tool = offered.find((candidate) => candidate.name === call.name);
    if (!tool) {
      problems.push(`${call.name} is not available now (available: ${offered.map((candidate) => candidate.name).join(', ')})`);
      continue;
    }
    const check = tool.arguments.safeParse(call.arguments);
    if (!check.success) {
      problems.push(`invalid arguments for ${tool.name}: ${check.error.issues.map((issue) => `${issue.path.join('.') || 'arguments'} ${issue.message}`).join('; ')}`);
      continue;
    }
    calls.push({ id: call.id, tool, arguments: check.data });
  }
  // A final answer beside an action would be given before the model has seen the action's
  // result: the action is carried out, the answer dropped, and the model told so.
  if (calls.some((call) => call.tool.final) && calls.some((call) => !call.tool.final)) {
    const dropped = calls.filter((call) => call.tool.final).map((call) => call.tool.name);
    calls = calls.filter((call) => !call.tool.final);
    problems.push(`your ${dropped.join(' and ')} was not taken because the same reply also asked for ${calls.map((call) => call.tool.name).join(', ')}; read the result first, then answer in a reply of its own`);
  }
  // Only the first final call is carried out.
  const firstFinal = calls.findIndex((call) => call.tool.final);
  if (firstFinal >= 0) calls = calls.slice(0, firstFinal + 1);
  // A reply cut off at the token limit is named as such, not as a reply that called nothing.
  if (response.finishReason === 'length' && calls.length === 0) problems.unshift('the reply was cut off at the token limit before it was complete; reply shorter');
  if (response.finishReason === 'repetition' && calls.length === 0) {
    problems.unshift(repetitionProblem(response.content));
  }
  return { thought, calls, problems };
}

/**
 * What a reply cut for repeating itself is told, and the analyst reads: the text's last 16
 * characters as one line (a repeated unit may hold newlines and tabs, which would break the
 * run bar's one line and the message's sense).
 */
export function repetitionProblem(content: string): string {
  return `the reply kept repeating "${content.replace(/\s+/g, ' ').slice(-16)}" and was cut off; write each value once`;
}

function repairRequest(problem: string, offered: ToolDefinition[], toolMode: 'tools' | 'text'): string {
  return toolMode === 'tools'
    ? `Your last reply could not be used: ${problem}. Reply by calling exactly one of these tools: ${offered.map((tool) => tool.name).join(', ')}.`
    : `Your last reply could not be used: ${problem}. Reply again using exactly one of the reply forms.\n\n${textProtocolInstructions(offered)}`;
}

function withTextInstructions(messages: ChatMessage[], offered: ToolDefinition[]): ChatMessage[] {
  const [system, ...rest] = messages;
  if (!system) return messages;
  return [{ role: 'system', content: `${system.content}\n\n${textProtocolInstructions(offered)}` }, ...rest];
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
