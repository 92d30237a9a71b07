import { dellmaDocumentUseSchema, dellmaFrameSchema, dellmaRunSettingsSchema, forecastLines, type DellmaContext, type DellmaDocumentUse, type DellmaRunSettings, type DellmaAudit, type DellmaExpected, type DellmaFit, type DellmaForecast, type DellmaFrame, type DellmaRank, type DellmaSampling, type DellmaStep } from '../../../contract/dellma';
import { WorkbenchError } from '../../../contract/errors';
import { extensionOn } from '../../../contract/fidelity';
import { dellmaOptionFactors } from './extensions';
import { decisionReply, forecastReply, rankingReply, shortlistReply } from './reply-schemas';
import { jsonReply } from '../structured-replies';
import type { SimulationResult, Verification } from '../../../contract/simulation';
import type { ChatMessage } from '../../../llm/types';
import { dialectNotes } from '../../dialects';
import { recordReview } from '../../review-gate';
import type { RunContext, RunOutcome } from '../../run-context';
import { summarizeSchema } from '../../schema-summary';
import { verifyDecision } from '../../../simulators/run-simulation';
import { runQuery, type QueryRun } from '../../tools/query';
import { simulateKnown, uncheckedReason } from '../../tools/simulate';
import { readQuery } from '../plan-dag/prompts';
import { readTechniqueOptions } from '../technique-options';
import { dellmaOptions } from './options';
import { dellmaReports } from './report';
import type { TechniqueDefinition } from '../technique';
import { normaliseFactor, stateProbability, type BeliefFactor, type State } from './belief';
import { estimateCost } from './cost';
import { describeDocumentUse, documentContext } from './documents';
import { frameFactors, listedAfter, readForecastLines } from './frame';
import { emitExactOutcomes } from './exact-step';
import { isWhatIfLine, readWhatIfMapping } from './whatif-mapping';
import { addCounts, kendallTau, pairCounts, tauOf, type PairCounts } from './kendall';
import { extractJsonObject, type CallRecord, type ModelCaller } from './model-calls';
import { windows } from './minibatch';
import { forecast, forecastKey, isDellmaVariant, problemSeed, solveWithBaseline, solveWithDellma, type BatchRecord, type DellmaParameters, type ProblemResult } from './pipeline';
import { stateText, type ProblemFrame } from './prompts';
import { seededRandom } from './random';
import { naiveSample, pairedSample, type Item, type Sample } from './sampling';

/**
 * DeLLMa as a workbench technique, on the run's database [SPECS §3.6]:
 *
 * 1. Frame: the options (listed in the question, else the simulator's candidate names, never
 *    their outcomes), shortlisted by the model to at most `maxActions` [paper: |A| ≤ 7].
 * 2. Context: one read-only query the model writes (a review point in step-through), with the
 *    documents the analyst attached to the notebook, bounded (./documents.ts).
 * 3. Forecast: one call; in step-through the analyst reviews it and may change likelihoods
 *    (recorded as an `analyst-review` of the forecast); everything after uses the edit.
 * 4. Paired sampling, one ranking call per minibatch, Bradley–Terry, expected utility: the
 *    pure pipeline of this folder; the decision is made in code, never by the model.
 * 5. The decision goes through the `answer` tool, so the simulator checks it like any
 *    technique's; then [ext] Kendall τ between the expected utilities and the simulator's
 *    true objective per option scores the elicited utilities.
 *
 * Each step is a `tool` event `dellma.<step>` whose input is typed in contract/dellma.ts.
 */
export const dellmaSettings = {
  /** s_a: states per action [paper 64; 16 here so a run fits the default step budget, as the paper's ablation]. */
  perAction: 16,
  batch: 32,
  overlap: 0.25,
  maxActions: 7,
  alpha: 2e-3,
  softmaxTemperature: 1,
  seed: 0,
  bootstrapResamples: 200,
  maxRepairs: 1,
} as const;

export const dellma: TechniqueDefinition = {
  id: 'dellma',
  label: 'DeLLMa',
  summary:
    'Decides under uncertainty: the model forecasts the unknowns in words (editable in step-through), ranks sampled futures of each option in minibatches, and the decision follows from a Bradley–Terry fit and expected utility computed in code.',
  method: '# Method\nDeLLMa: forecast the unknowns, rank sampled state–option pairs, decide by expected utility.',
  usesDocuments: true,
  options: dellmaOptions,
  extensions: [dellmaOptionFactors],
  // Each step's record keeps its typed input (contract/dellma.ts) for the notebook's DeLLMa step views.
  cells: { toolPrefixes: ['dellma.'] },
  reviews: [
    { subject: 'query', what: 'each query' },
    { subject: 'forecast', what: 'the forecast' },
    { subject: 'ranking', what: 'each ranking batch' },
  ],
  reports: dellmaReports,
  // Its JSON replies (./reply-schemas.ts), built for an example: two options, one shared unknown, the default batch.
  structuredReplies: [
    forecastReply([{ name: 'demand', scope: { kind: 'shared' } }]),
    rankingReply(dellmaSettings.batch),
    shortlistReply(['option a', 'option b', 'option c'], dellmaSettings.maxActions),
    decisionReply(['option a', 'option b']),
  ].map(jsonReply),
  run: (run) => runDellma(run),
};

/** The problem number of a question without an id, and of every run saved before numbers followed the id. */
const fixedProblemNumber = 1;

/**
 * A run decides one problem; its number enters the seed as in `dwb dellma solve`
 * (`problemSeed`). A DQA question (`dwb dqa solve`, the Benchmarks view) has a stable id, and
 * its number is FNV-1a (32 bits) of `id:<id>`, so every question of a benchmark gets a draw of
 * its own. A question asked in the notebook has no id and keeps number 1: rewording it, or
 * changing its What-if lines [ext], never changes the futures it samples.
 */
export function dellmaProblemNumber(questionId?: string): number {
  if (questionId === undefined) return fixedProblemNumber;
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(`id:${questionId}`)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash;
}

class RunEnding extends Error {
  constructor(
    readonly status: RunOutcome['status'],
    message: string,
  ) {
    super(message);
  }
}

/** The pipeline's model calls, made through the run (recorded, counted, limited, checkpointed). */
function runCaller(run: RunContext): ModelCaller {
  const calls: CallRecord[] = [];
  return {
    calls,
    async call(purpose, _problem, attempt, messages, requested) {
      // An explicit run temperature (`--temperature`) replaces the paper's greedy 0; self-consistency keeps its own.
      const set = run.options.fidelity?.temperatureFrom === 'option' ? run.options.fidelity.temperature : null;
      const options = requested.temperature === 0 && set !== null && set !== undefined ? { ...requested, temperature: set } : requested;
      const over = run.overLimit();
      if (over) throw new RunEnding(over.status, over.message);
      run.options.onCheckpoint?.(run.checkpoint(null));
      const asked = await run.ask(
        { messages, temperature: options.temperature, ...(options.maxTokens ? { maxTokens: options.maxTokens } : {}), ...(options.output ? { output: options.output } : {}) },
        { purpose: attempt ? `${purpose}-repair` : purpose },
      );
      if ('failure' in asked) throw new RunEnding(asked.failure, asked.message);
      const { response } = asked;
      calls.push({ sequence: calls.length, purpose, problem: null, attempt, temperature: options.temperature, promptChars: 0, content: response.content, usage: response.usage, latencyMs: response.latencyMs, error: null, constrained: response.constrained ?? 'none' });
      return asked.response.content;
    },
  };
}

function emitStep(run: RunContext, step: DellmaStep, input: unknown, output: string, node?: string): void {
  run.emit({ type: 'tool', step: run.state.steps, ...(node ? { node } : {}), tool: `dellma.${step}`, input, output });
}

async function runDellma(run: RunContext): Promise<RunOutcome> {
  if (run.options.resume) run.emit({ type: 'run-resume', step: run.state.steps + 1, messageCount: 0 });
  try {
    return await decide(run);
  } catch (error) {
    if (error instanceof RunEnding) return run.finish(error.status, error.message);
    return run.finish('failed', WorkbenchError.from(error).message);
  }
}

async function decide(run: RunContext): Promise<RunOutcome> {
  const question = run.options.question;
  const schemaSummary = summarizeSchema(await run.options.connector.schema());
  // [ext] The analyst's what-if lines: read before any model call, so a mistake costs nothing.
  const mapping = readWhatIfMapping(question, { unknowns: listedAfter('unknowns', question), options: listedAfter('options', question) });
  if (!mapping.ok) return run.finish('failed', `The what-if lines cannot be used: ${mapping.problems.join('; ')}`);
  // The model sees the goal without the frame's lines, and never the what-if SQL.
  const goal = question
    .split('\n')
    .filter((line) => !isWhatIfLine(line))
    .join('\n')
    .replace(/^\s*(options|unknowns)\s*:.*$/gim, '')
    .trim();
  const caller = runCaller(run);
  // What an interrupted run had finished; kept in the run's state so every checkpoint holds it.
  const progress: DellmaProgress = (run.options.resume ? savedProgress(run.state.technique) : null) ?? { problem: dellmaProblemNumber(run.options.questionId), frame: null, context: null, documents: [], forecast: null, beliefs: null, answered: null, batches: [] };
  // Recorded with the progress, so a resumed run draws exactly what it drew before.
  const problemNumber = progress.problem;
  // Saved at once when a step ends at a review point, where no model call would save it.
  const save = (): void => run.options.onCheckpoint?.(run.checkpoint(null));
  run.saveTechniqueState(progress);
  const frame = progress.frame ?? (await frameOptions(run, caller, question, goal, schemaSummary));
  if ('end' in frame) return frame.end;
  progress.frame = frame;
  const actions = frame.actions;

  // 2. Context: one query the model writes, and the attached documents.
  if (progress.context === null) {
    const retrieved = await retrieveContext(run, caller, goal, actions, schemaSummary);
    progress.context = retrieved.context;
    progress.documents = retrieved.documents;
  }
  const context = progress.context;
  const documents = progress.documents;

  const params = dellmaParameters(readTechniqueOptions(dellmaRunSettingsSchema, run.options.techniqueOptions, 'DeLLMa'));
  const problemFrame: ProblemFrame = { goal, context, actions: actions.map((name) => ({ name, label: name })) };
  // The paper's baselines decide from the context alone: no forecast, no sampling.
  if (!isDellmaVariant(params.variant)) {
    const answered = await solveWithBaseline(caller, problemNumber, problemFrame, params);
    if (mapping.mapping) await emitExactOutcomes(run, mapping.mapping, answered, []);
    return concludeBaseline(run, answered);
  }

  // 3. Forecast, and the analyst's review of it.
  // [ext] `dellma-option-factors`: on a database each option gets an unknown of its own (frames recorded before the flag all had it).
  const factors = frameFactors(frame.optionFactors === false ? [] : actions, listedAfter('unknowns', question) ?? [], new Map(mapping.mapping?.factors.map((factor) => [factor.name, factor.values.map((entry) => entry.value)]) ?? []));
  if (factors.length === 0) return run.finish('failed', 'DeLLMa has no unknown to forecast: list them in the question ("Unknowns: a; b"), or run with the per-option factors extension on');
  const cost = estimateCost({ variant: params.variant, actions: actions.length, perAction: params.perAction, naiveSamples: params.naiveSamples, batch: params.batch, overlap: params.overlap, contextChars: context.length, factorNameChars: factors.reduce((sum, factor) => sum + factor.name.length, 0), factorCount: factors.length, forecastCached: true, selfConsistency: params.selfConsistency });
  let beliefs = progress.beliefs;
  if (!beliefs) {
    let forecasted = progress.forecast;
    if (!forecasted) {
      // Reused across runs by the forecast call's hash; only the model's answer is kept, never the analyst's edit.
      const store = run.options.forecastStore;
      const key = forecastKey(run.options.provider.description, { context, goal, factors });
      const stored = store?.get(key) ?? null;
      if (stored) forecasted = stored.factors;
      else {
        forecasted = (await forecast(caller, run.options.provider.description, { context, goal, factors }, new Map(), dellmaSettings.maxRepairs)).factors;
        store?.put(key, forecasted);
      }
      emitForecast(run, 'model', forecasted, documents, stored ? { runId: stored.runId, savedAt: stored.savedAt } : undefined);
      progress.forecast = forecasted;
      save();
    }
    const reviewed = await reviewForecast(run, forecasted, documents);
    if ('end' in reviewed) return reviewed.end;
    beliefs = reviewed.beliefs;
    // The plan and its cost are shown before any ranking call is made (the sampling is seeded, so it is known now).
    emitSampling(run, params, problemNumber, beliefs, actions.length, cost);
    progress.beliefs = beliefs;
  }
  const finalBeliefs = beliefs;

  // 4. Sampling, rankings, fit, expected utility.
  // The seeded draw the pipeline makes, so a review can describe a batch's scenarios.
  const sampled = drawnSample(params, problemNumber, finalBeliefs, actions.length);
  const result = await solveWithDellma(caller, problemNumber, problemFrame, finalBeliefs, params, {
    onBatch: (batch, sample) => emitBatch(run, batch, sample, actions, finalBeliefs),
    ...(run.options.gate.interactive ? { reviewBatch: (batch: BatchRecord) => reviewRanking(run, batch, sampled, actions, finalBeliefs) } : {}),
    onAnswered: (batch) => {
      progress.answered = batch;
      save();
    },
    answered: progress.answered,
    onBatchDone: (batch) => {
      progress.batches.push(batch);
      progress.answered = null;
    },
    completed: progress.batches,
  });
  const detail = result.dellma;
  if (!detail) return run.finish('failed', 'The DeLLMa pipeline returned no detail');
  emitResult(run, result, finalBeliefs, params);
  // [ext] Beside the decision, never into it: everything above is final before the sandbox runs.
  if (mapping.mapping) await emitExactOutcomes(run, mapping.mapping, result, finalBeliefs);
  if (!result.chosen) return run.finish('failed', `No decision: ${result.note ?? 'no usable ranking'}`);
  return conclude(run, result, actions);
}

/** 1. The options, shortlisted when there are more than the paper tried; emitted as the frame cell. */
async function frameOptions(run: RunContext, caller: ModelCaller, question: string, goal: string, schemaSummary: string): Promise<DellmaFrame | { end: RunOutcome }> {
  const listed = listedAfter('options', question);
  const fromSimulator = listed ? null : await simulatorCandidates(run);
  const candidates = listed ?? fromSimulator ?? (await queriedCandidates(run, caller, goal, schemaSummary));
  if (!candidates || candidates.length < 2) {
    return { end: run.finish('failed', `DeLLMa needs at least two options: list them in the question ("Options: a; b; c")${candidates ? `; the candidate query gave ${candidates.length}` : ''}`) };
  }
  const shortlist = candidates.length > dellmaSettings.maxActions ? await prune(caller, goal, candidates, schemaSummary) : { actions: candidates, note: null };
  const actions = shortlist.actions;
  const optionFactors = extensionOn(run.options.fidelity, dellmaOptionFactors);
  const frame: DellmaFrame = { goal, actions, source: listed ? 'question' : fromSimulator ? 'simulator' : 'query', pruned: candidates.filter((name) => !actions.includes(name)), maxActions: dellmaSettings.maxActions, note: shortlist.note, optionFactors };
  const factorNote = optionFactors ? '. [ext] Each option gets a factor of its own ("how <option> turns out")' : ". Only the question's listed unknowns are forecast";
  emitStep(run, 'frame', frame, `Options (${frame.source === 'question' ? 'listed in the question' : frame.source === 'query' ? 'listed by a query' : "the simulator's candidates, names only"}): ${actions.join(', ')}${frame.pruned.length ? `. Left out by the shortlist: ${frame.pruned.join(', ')}` : ''}${frame.note ? `. ${frame.note}` : ''}${factorNote}`);
  return frame;
}

/**
 * 2. The context: the business rules, the documents the analyst attached (bounded, a cut one
 * says so) and the rows of one query the model writes (a review point in step-through).
 * With documents, a `dellma.context` cell names them and how much of each was used.
 */
async function retrieveContext(run: RunContext, caller: ModelCaller, goal: string, actions: readonly string[], schemaSummary: string): Promise<{ context: string; documents: DellmaDocumentUse[] }> {
  const retrieved = await gatedQuery(run, caller, 'dellma.retrieve', `My goal: ${goal}\nThe options: ${actions.join(', ')}\n\nWrite one query that retrieves the data most useful for judging how each option could turn out.`, schemaSummary);
  const data = retrieved?.text ?? null;
  const attached = documentContext(run.options.documents ?? []);
  const context = [
    run.options.rules ? `Business rules:\n${run.options.rules}` : '',
    attached.text ? `Documents attached by the analyst:\n\n${attached.text}` : '',
    data ? `Data retrieved from the database:\n${data}` : 'No data could be retrieved.',
  ]
    .filter(Boolean)
    .join('\n\n');
  // Written when documents were attached: the query and its rows already have their cells.
  if (attached.used.length) {
    const record: DellmaContext = { documents: attached.used, dataChars: data?.length ?? 0, chars: context.length };
    emitStep(run, 'context', record, `Context for the forecast and the rankings (${context.length.toLocaleString('en-US')} characters). Documents used: ${describeDocumentUse(attached.used)}. ${data ? `Data: ${data.length.toLocaleString('en-US')} characters of query rows.` : 'No data could be retrieved.'}`, 'context');
  }
  return { context, documents: attached.used };
}

/** The pipeline's parameters from the run's settings; the regulariser as the reference code's agriculture runs [SPECS §3]. */
export function dellmaParameters(settings: DellmaRunSettings): DellmaParameters {
  return {
    variant: settings.variant,
    perAction: settings.perAction,
    batch: settings.batch,
    overlap: settings.overlap,
    naiveSamples: settings.naiveSamples,
    alpha: settings.variant === 'pairs' ? dellmaSettings.alpha : 1e-3,
    softmaxTemperature: dellmaSettings.softmaxTemperature,
    seed: dellmaSettings.seed,
    bootstrapResamples: dellmaSettings.bootstrapResamples,
    selfConsistency: settings.selfConsistency,
    // The paper's self-consistency temperature [paper: 0.5].
    selfConsistencyTemperature: 0.5,
    maxRepairs: dellmaSettings.maxRepairs,
  };
}

/** The seeded draw the pipeline makes for the variant: paired states (Pairs, Top-1) or Naive's independent items. */
function drawnSample(params: DellmaParameters, problemNumber: number, beliefs: readonly BeliefFactor[], actionCount: number): Sample {
  const random = seededRandom(problemSeed(params.seed, problemNumber));
  return params.variant === 'naive' ? naiveSample(random, beliefs, actionCount, params.naiveSamples) : pairedSample(random, beliefs, actionCount, params.perAction);
}

/** A baseline's answer: the majority of the model's choices, recorded as the model's (no expected utility). */
async function concludeBaseline(run: RunContext, result: ProblemResult): Promise<RunOutcome> {
  const votes = Object.entries(result.baseline?.votes ?? {}).map(([name, count]) => `${name} ${count}`).join(', ');
  const label = result.variant === 'zero-shot' ? 'Zero-shot' : result.variant === 'cot' ? 'Chain-of-thought' : 'Self-consistency';
  if (!result.chosen) return run.finish('failed', `No decision: ${result.note ?? 'no answer named an option'}`);
  const step = run.state.steps;
  const simulation = await simulateKnown(run.toolContext(), step);
  if (simulation) run.applyStateChanges({ lastSimulation: simulation });
  const rationale = `${label} baseline [paper §4]: the model's answer${result.baseline && result.baseline.answers.length > 1 ? `s (votes: ${votes})` : ''}; no forecast, sampling or expected utility.`;
  const check = run.state.lastSimulation ?? null;
  // Zero-shot and CoT decisions are the model's own words; self-consistency's is a vote counted in code.
  const computedBy = result.variant === 'sc' ? `majority of the model's ${result.baseline?.answers.length ?? 0} answers` : null;
  run.emit({ type: 'decision', step, decision: result.chosen, rationale, evidence: [...run.state.evidence], ...verdictOf(run, result.chosen, check), ...(computedBy ? { computedBy } : {}) });
  return run.finish('answered', null, { decision: result.chosen, rationale });
}

/**
 * What a DeLLMa run has finished, saved with every checkpoint: a resumed run starts after the
 * last finished step (frame, context, the reviewed forecast with the sampling cell, each final
 * batch) instead of asking and showing them again.
 */
interface DellmaProgress {
  /** The problem number the seed is derived from (`dellmaProblemNumber`). */
  problem: number;
  frame: DellmaFrame | null;
  context: string | null;
  /** The attached documents the context used. */
  documents: DellmaDocumentUse[];
  /** The model's forecast, shown; its review may still be pending. */
  forecast: BeliefFactor[] | null;
  /** The forecast after its review: everything after is sampled from it. */
  beliefs: BeliefFactor[] | null;
  /** The batch the model has ranked (its cell shown) whose review is pending. */
  answered: BatchRecord | null;
  batches: BatchRecord[];
}

function savedProgress(saved: unknown): DellmaProgress | null {
  if (!saved || typeof saved !== 'object') return null;
  const progress = saved as Partial<DellmaProgress>;
  const frame = dellmaFrameSchema.safeParse(progress.frame);
  return {
    problem: typeof progress.problem === 'number' && Number.isInteger(progress.problem) ? progress.problem : fixedProblemNumber,
    frame: frame.success ? frame.data : null,
    context: frame.success && typeof progress.context === 'string' ? progress.context : null,
    documents: Array.isArray(progress.documents) ? progress.documents.filter((entry) => dellmaDocumentUseSchema.safeParse(entry).success) : [],
    forecast: frame.success && typeof progress.context === 'string' && Array.isArray(progress.forecast) ? progress.forecast : null,
    beliefs: frame.success && typeof progress.context === 'string' && Array.isArray(progress.beliefs) ? progress.beliefs : null,
    answered: Array.isArray(progress.beliefs) && progress.answered && typeof progress.answered === 'object' ? progress.answered : null,
    batches: Array.isArray(progress.beliefs) && Array.isArray(progress.batches) ? progress.batches : [],
  };
}

/** 5. The decision, checked by the simulator; then the audit of the utilities [ext]. */
async function conclude(run: RunContext, result: ProblemResult, actions: readonly string[]): Promise<RunOutcome> {
  const detail = result.dellma;
  if (!detail || !result.chosen) return run.finish('failed', 'No decision');
  const step = run.state.steps;
  const simulation = await simulateKnown(run.toolContext(), step);
  if (simulation) {
    run.applyStateChanges({ lastSimulation: simulation });
    emitAudit(run, result, simulation);
  }
  const chosenExpected = detail.expected[actions.indexOf(result.chosen)] ?? 0;
  const rationale = `Highest expected utility (${chosenExpected.toPrecision(3)}${detail.decision?.margin !== null && detail.decision?.margin !== undefined ? `, ahead of ${actions[detail.decision.runnerUp ?? -1] ?? '?'} by ${detail.decision.margin.toPrecision(3)}` : ''}) over ${detail.states.length} sampled futures ranked in ${detail.batches.length} batch(es).`;
  // The decision is computed here, not written by the model: recorded as such, checked like any answer.
  const check = run.state.lastSimulation ?? null;
  run.emit({ type: 'decision', step, decision: result.chosen, rationale, evidence: [...run.state.evidence], ...verdictOf(run, result.chosen, check), computedBy: 'expected utility' });
  return run.finish('answered', null, { decision: result.chosen, rationale });
}

/** The simulator's verdict on the chosen option, or why it went unchecked ("not checked: …"). */
function verdictOf(run: RunContext, chosen: string, check: SimulationResult | null): { verification: Verification | null; unchecked?: string } {
  return check ? { verification: verifyDecision(chosen, check) } : { verification: null, unchecked: uncheckedReason(run.toolContext()) };
}

/** The simulator's candidates, by name only: their outcomes stay hidden until the decision is checked. */
async function simulatorCandidates(run: RunContext): Promise<string[] | null> {
  const simulator = run.options.simulator;
  if (!simulator) return null;
  const { country, home, goods } = simulator.known;
  const spec = simulator.scenario === 'locating' ? (country && home ? { scenario: 'locating' as const, country, home, rules: simulator.rules } : null) : goods ? { scenario: 'building' as const, goods, rules: simulator.rules } : null;
  if (!spec) return null;
  try {
    return (await simulator.run(spec)).candidates.map((row) => row.candidate).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  } catch {
    return null;
  }
}

/** More options than the paper tried: the model shortlists them (a CAN error shows here, in the frame cell). */
async function prune(caller: ModelCaller, goal: string, candidates: readonly string[], schemaSummary: string): Promise<{ actions: string[]; note: string | null }> {
  const limit = dellmaSettings.maxActions;
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You help a decision maker choose under uncertainty. Answer with exactly one JSON object and nothing else.' },
    { role: 'user', content: `The database:\n${schemaSummary}\n\nMy goal: ${goal}\n\nThe candidates:\n${candidates.join(', ')}\n\nKeep at most ${limit} candidates worth weighing carefully. Reply with {"keep": ["<candidate>", …]}, spelling each as listed.` },
  ];
  const answer = await caller.call('dellma.shortlist', null, 0, messages, { temperature: 0, output: shortlistReply(candidates, limit) });
  const keep = extractJsonObject(answer)?.keep;
  const chosen = Array.isArray(keep) ? [...new Set(keep.map(String).map((name) => candidates.find((candidate) => candidate.toLowerCase() === name.trim().toLowerCase())).filter((name): name is string => name !== undefined))].slice(0, limit) : [];
  if (chosen.length >= 2) return { actions: chosen, note: null };
  return { actions: candidates.slice(0, limit), note: `The shortlist answer was unusable; the first ${limit} candidates in name order are weighed` };
}

/**
 * One query the model writes, carried out as the query tool does (a review point in
 * step-through: approve, edit, skip with a note, stop); returns the observation and the rows.
 */
async function gatedQuery(run: RunContext, caller: ModelCaller, purpose: 'dellma.candidates' | 'dellma.retrieve', ask: string, schemaSummary: string): Promise<QueryRun | null> {
  const dialect = dialectNotes[run.engine];
  const messages: ChatMessage[] = [
    { role: 'system', content: `You write one read-only ${dialect.label} query. ${dialect.notes}` },
    { role: 'user', content: `The database:\n${schemaSummary}\n\n${ask}\n\nReply with the query only, in a fenced code block.` },
  ];
  const query = readQuery(await caller.call(purpose, null, 0, messages, { temperature: 0 }));
  if (!query) return null;
  const step = run.state.steps;
  const { gate } = run.options;
  const decision = await gate.review({ subject: 'query', step, query }, run.signal);
  if (gate.interactive) recordReview(run, { step }, 'query', query, decision);
  if (decision.action === 'stop') throw new RunEnding('stopped', 'The analyst stopped the run to continue by hand');
  if (decision.action === 'skip') {
    run.emit({ type: 'observation', step, queryId: null, text: 'Skipped by the analyst.' });
    return null;
  }
  const edited = decision.action === 'edit' && decision.query?.trim() ? decision.query.trim() : null;
  const ran = await runQuery(run.toolContext(), { step, query: edited ?? query, author: edited ? 'analyst' : 'model' });
  run.applyStateChanges({ ...ran.stateChanges, queries: 1 });
  return ran;
}

/** No options in the question and no simulator: a query lists the candidates (first column) [SPECS §3.6(a)]. */
async function queriedCandidates(run: RunContext, caller: ModelCaller, goal: string, schemaSummary: string): Promise<string[] | null> {
  const ran = await gatedQuery(run, caller, 'dellma.candidates', `The question: ${goal}\n\nWrite one query whose first column lists every candidate answer to the question (one row each, each candidate once).`, schemaSummary);
  if (!ran?.result) return null;
  const names = ran.result.rows.map((row) => row[0]).filter((value) => value !== null && value !== undefined).map((value) => String(value).trim()).filter(Boolean);
  return [...new Set(names)];
}

function forecastRecord(source: DellmaForecast['source'], beliefs: readonly BeliefFactor[]): DellmaForecast {
  return {
    source,
    factors: beliefs.map((factor) => ({
      name: factor.name,
      action: factor.scope.kind === 'action' ? factor.scope.action : null,
      ...(factor.fixedValues ? { mapped: true } : {}),
      values: factor.values.map((entry, index) => ({ value: entry.value, likelihood: entry.likelihood, probability: factor.probabilities[index] ?? 0 })),
    })),
  };
}

function emitForecast(run: RunContext, source: DellmaForecast['source'], beliefs: readonly BeliefFactor[], documents: readonly DellmaDocumentUse[], reused?: NonNullable<DellmaForecast['reused']>): void {
  const record: DellmaForecast = { ...forecastRecord(source, beliefs), ...(reused ? { reused } : {}), ...(documents.length ? { documents: [...documents] } : {}) };
  const who = source === 'model' ? "The model's forecast" : "The analyst's forecast";
  const origin = reused ? ` (reused, no model call: made by ${reused.runId ?? 'an earlier run'} at ${reused.savedAt} with the same model, options, factors and context)` : '';
  const from = documents.length ? ` From the context with the documents ${describeDocumentUse(documents)}.` : '';
  emitStep(run, 'forecast', record, `${who}${origin}:${from}\n${record.factors.map((factor) => `- ${factor.name}${factor.mapped ? ' [ext: values mapped to what-if changes by the analyst; likelihoods by the model]' : ''}: ${factor.values.map((entry) => `${entry.value} (${entry.likelihood}, p=${entry.probability.toFixed(3)})`).join('; ')}`).join('\n')}`, 'forecast');
}

/** Step-through: the forecast waits for the analyst, who may change likelihoods before anything is sampled. */
async function reviewForecast(run: RunContext, beliefs: BeliefFactor[], documents: readonly DellmaDocumentUse[]): Promise<{ beliefs: BeliefFactor[] } | { end: RunOutcome }> {
  const { gate } = run.options;
  if (!gate.interactive) return { beliefs };
  const original = forecastLines(forecastRecord('model', beliefs));
  const step = run.state.steps;
  let decision = await gate.review({ subject: 'forecast', step, node: 'forecast', steps: original, reason: 'Review the forecast before futures are sampled from it: change any likelihood, and everything after is computed from your version.' }, run.signal);
  let edited: BeliefFactor[] | null = null;
  if (decision.action === 'edit' && decision.steps) {
    const read = readForecastLines(decision.steps, beliefs);
    if (read.ok) edited = read.factors.map(normaliseFactor);
    else decision = { action: 'note', note: `The edit was not used: ${read.problems.join('; ')}` };
  }
  recordReview(run, { step, node: 'forecast' }, 'forecast', original.join('\n'), decision);
  if (decision.action === 'stop') return { end: run.finish('stopped', 'The analyst stopped the run to continue by hand') };
  if (!edited) return { beliefs };
  emitForecast(run, 'analyst', edited, documents);
  return { beliefs: edited };
}

/** The sampling plan and the ranking calls it will cost, before they are made. */
function emitSampling(run: RunContext, params: DellmaParameters, problemNumber: number, beliefs: readonly BeliefFactor[], actionCount: number, cost: ReturnType<typeof estimateCost>): void {
  // The same seeded draw the pipeline makes next, so these are exactly the futures it ranks.
  const sample = drawnSample(params, problemNumber, beliefs, actionCount);
  const items = sample.items.length;
  const naive = params.variant === 'naive';
  const sampling: DellmaSampling = {
    seed: problemSeed(params.seed, problemNumber),
    variant: naive ? 'naive' : params.variant === 'top1' ? 'top1' : 'pairs',
    perAction: params.perAction,
    batch: naive ? items : params.batch,
    overlap: naive ? 0 : params.overlap,
    states: sample.states.length,
    items,
    // Naive ranks all its items in one call [paper §4].
    windows: naive ? [{ start: 0, size: items }] : windows(items, params.batch, params.overlap).map((window) => ({ start: window.start, size: window.size })),
    futures: sample.states.map((state) => ({ state: stateText(beliefs, state), probability: stateProbability(beliefs, state) })),
    cost: { calls: cost.rankingCalls, promptTokens: cost.promptTokens, completionTokens: cost.completionTokens },
  };
  const variantText = params.variant === 'top1' ? 'Top-1' : naive ? 'Naive' : 'Pairs';
  const questionId = run.options.questionId;
  const seedSource = run.options.resume ? '' : questionId !== undefined ? `, from question ${questionId}` : ', the same for every question without an id';
  if (naive) {
    emitStep(run, 'sampling', sampling, `${variantText}: sampling ${sampling.items} scenarios (seed ${sampling.seed}${seedSource}), each a future of its own with an option drawn at random, ranked in one call; estimated ${cost.rankingCalls} ranking call(s), about ${cost.promptTokens} prompt tokens.`, 'sampling');
    return;
  }
  emitStep(run, 'sampling', sampling, `${variantText}: sampling ${sampling.states} futures (seed ${sampling.seed}${seedSource}), each with every option: ${sampling.items} scenarios in ${sampling.windows.length} overlapping batch(es) of up to ${sampling.batch} (overlap ${sampling.overlap}); estimated ${cost.rankingCalls} ranking call(s), about ${cost.promptTokens} prompt tokens.`, 'sampling');
}

/** One ranking cell, written as soon as the batch's answer is in. */
function emitBatch(run: RunContext, batch: BatchRecord, sample: { states: State[]; items: Item[] }, actions: readonly string[], beliefs: readonly BeliefFactor[]): void {
  const { record, text } = rankStep(batch, sample, actions, beliefs);
  emitStep(run, 'rank', record, text, `batch-${record.batch}`);
}

/** A batch as its ranking cell's record and text (a run's, or an analyst's re-fit). */
export function rankStep(batch: BatchRecord, sample: { states: State[]; items: Item[] }, actions: readonly string[], beliefs: readonly BeliefFactor[]): { record: DellmaRank; text: string } {
  const describe = (position: number): { action: string; state: string } => {
    const item = sample.items[position];
    return { action: actions[item?.action ?? -1] ?? '?', state: stateText(beliefs, sample.states[item?.stateId ?? -1] ?? []) };
  };
  const local = (position: number): number => batch.items.indexOf(position) + 1;
  const byAnalyst = batch.rankedBy === 'analyst';
  const record: DellmaRank = {
    batch: batch.window.index + 1,
    items: batch.items.map((position, at) => ({ number: at + 1, position, ...describe(position) })),
    rank: batch.rank,
    order: batch.order ? batch.order.map(local) : null,
    repairs: batch.repair ? { missing: batch.repair.missing, duplicates: batch.repair.duplicates, outOfRange: batch.repair.outOfRange } : null,
    explanation: batch.explanation,
    attempts: batch.attempts,
    comparisons: batch.comparisons,
    rankedBy: batch.rankedBy,
    modelOrder: batch.modelOrder ? batch.modelOrder.map(local) : null,
  };
  if (byAnalyst) {
    return { record, text: `Batch ${record.batch} ranked by the analyst (${record.items.length} scenarios): best first ${record.order?.join(', ') ?? ''}; the analyst's ${record.comparisons} comparisons replace the model's (model: ${record.modelOrder?.join(', ') ?? 'no usable ranking'}).` };
  }
  const repairs = record.repairs ? [...record.repairs.missing.map((n) => `${n} appended`), ...record.repairs.duplicates.map((n) => `${n} repeated`), ...record.repairs.outOfRange.map((n) => `${n} out of range`)] : [];
  return { record, text: `Batch ${record.batch} (${record.items.length} scenarios): ${record.order ? `best first ${record.order.join(', ')}` : 'no usable ranking'}${repairs.length ? `; repaired: ${repairs.join(', ')}` : ''}. ${record.explanation}` };
}

/**
 * Step-through: the batch's scenarios wait for the analyst as `number | option | future`
 * lines, best first as the model ranked them. Reordered lines are the analyst's ranking,
 * which replaces the model's comparisons for this batch in the fit; a list that is not the
 * batch's numbers each once is refused with its problems and the model's ranking is kept.
 */
async function reviewRanking(run: RunContext, batch: BatchRecord, sample: { states: State[]; items: Item[] } | null, actions: readonly string[], beliefs: readonly BeliefFactor[]): Promise<number[] | null> {
  const { gate } = run.options;
  const numbered = batch.order ?? batch.items;
  const lines = numbered.map((position) => {
    const item = sample?.items[position];
    return `${batch.items.indexOf(position) + 1} | ${actions[item?.action ?? -1] ?? '?'} | ${stateText(beliefs, sample?.states[item?.stateId ?? -1] ?? [])}`;
  });
  const step = run.state.steps;
  const node = `batch-${batch.window.index + 1}`;
  let decision = await gate.review({ subject: 'ranking', step, node, steps: lines, reason: `Batch ${batch.window.index + 1}: the model's ranking, best first. Reorder the lines to rank the batch yourself; your comparisons replace the model's in the fit.` }, run.signal);
  let order: number[] | null = null;
  if (decision.action === 'edit' && decision.steps) {
    const read = readRankingLines(decision.steps, batch.items.length);
    if (read.ok) order = read.order.map((number) => batch.items[number - 1] as number);
    else decision = { action: 'note', note: `The ranking was not used: ${read.problems.join('; ')}` };
  }
  recordReview(run, { step, node }, 'ranking', lines.join('\n'), decision);
  if (decision.action === 'stop') throw new RunEnding('stopped', 'The analyst stopped the run to continue by hand');
  return order;
}

/** The analyst's ranking lines (each led by its scenario number), best first: every number 1..size exactly once. */
export function readRankingLines(lines: readonly string[], size: number): { ok: true; order: number[] } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  const order: number[] = [];
  lines.forEach((line, index) => {
    const number = Number(/^\s*(\d+)/.exec(line)?.[1] ?? Number.NaN);
    if (!Number.isInteger(number) || number < 1 || number > size) problems.push(`line ${index + 1}: "${line.trim()}" does not start with a scenario number from 1 to ${size}`);
    else if (order.includes(number)) problems.push(`line ${index + 1}: scenario ${number} is listed twice`);
    else order.push(number);
  });
  const missing = Array.from({ length: size }, (_, index) => index + 1).filter((number) => !order.includes(number));
  if (missing.length) problems.push(`missing scenario(s) ${missing.join(', ')}`);
  return problems.length ? { ok: false, problems } : { ok: true, order };
}

function emitResult(run: RunContext, result: ProblemResult, beliefs: readonly BeliefFactor[], params: DellmaParameters): void {
  const steps = resultSteps(result, beliefs, params.softmaxTemperature);
  if (!steps) return;
  emitStep(run, 'fit', steps.fit.record, steps.fit.text, 'fit');
  emitStep(run, 'expected', steps.expected.record, steps.expected.text, 'expected');
}

/** The fit and expected-utility cells of a result, as records and texts (a run's, or an analyst's re-fit). */
export function resultSteps(result: ProblemResult, beliefs: readonly BeliefFactor[], softmaxTemperature: number): { fit: { record: DellmaFit; text: string }; expected: { record: DellmaExpected; text: string } } | null {
  const detail = result.dellma;
  if (!detail) return null;
  const actions = result.actions;
  const describe = (position: number): { action: string; state: string } => {
    const item = detail.items[position];
    return { action: actions[item?.action ?? -1] ?? '?', state: stateText(beliefs, detail.states[item?.stateId ?? -1] ?? []) };
  };
  let pooled: PairCounts = { pairs: 0, concordant: 0, discordant: 0, tiedX: 0, tiedY: 0 };
  const batchAgreement = detail.batches.map((batch) => {
    const agreement = batch.order ? orderAgreement(batch.order, detail.utilities) : null;
    if (agreement) pooled = addCounts(pooled, agreement);
    return agreement ? tauOf(agreement) : null;
  });

  const analystBatches = detail.batches.filter((batch) => batch.rankedBy === 'analyst').map((batch) => batch.window.index + 1);
  const fit: DellmaFit = {
    kind: detail.fit.kind,
    comparisons: detail.fit.comparisons,
    components: detail.fit.components,
    alpha: detail.fit.alpha,
    temperature: softmaxTemperature,
    iterations: detail.fit.iterations,
    converged: detail.fit.converged,
    items: detail.items.map((_item, position) => ({ position, ...describe(position), theta: detail.fit.theta[position] ?? 0, utility: detail.utilities[position] ?? 0 })),
    rankAgreement: tauOf(pooled),
    batchAgreement,
  };
  const fitText = `Bradley–Terry (ILSR, alpha ${fit.alpha}) over ${fit.comparisons} comparisons, ${fit.components} component(s) of the comparison graph, ${fit.iterations} iterations${fit.converged ? '' : ' (not converged)'}; utilities = softmax(θ/${fit.temperature}) over all ${fit.items.length} scenarios.${analystBatches.length ? ` Batch(es) ${analystBatches.join(', ')} ranked by the analyst.` : ''}${fit.rankAgreement === null ? '' : ` [ext] Kendall τ of the rankings with the fitted utilities: ${fit.rankAgreement.toFixed(3)}.`}`;

  const decision = detail.decision;
  const expected: DellmaExpected = {
    rows: actions.map((action, index) => ({ action, expected: detail.expected[index] ?? null, low: detail.interval.intervals[index]?.low ?? null, high: detail.interval.intervals[index]?.high ?? null })),
    chosen: result.chosen,
    runnerUp: decision?.runnerUp === null || decision?.runnerUp === undefined ? null : (actions[decision.runnerUp] ?? null),
    margin: decision?.margin ?? null,
    note: result.note,
    stability: detail.interval.stability,
    sensitivity: detail.sensitivity,
  };
  const expectedText = `Expected utility: ${expected.rows.map((row) => `${row.action} ${row.expected === null ? 'n/a' : row.expected.toPrecision(3)}`).join(', ')}. Decision: ${expected.chosen ?? `none (${expected.note ?? ''})`}${expected.margin === null ? '' : `, margin ${expected.margin.toPrecision(3)} over ${expected.runnerUp ?? '?'}`}.`;
  return { fit: { record: fit, text: fitText }, expected: { record: expected, text: expectedText } };
}

/** [ext] τ counts between a batch's order (best first) and the fitted utilities of its items. */
function orderAgreement(order: readonly number[], utility: readonly number[]): PairCounts | null {
  if (order.length < 2) return null;
  return pairCounts(
    order.map((_position, index) => order.length - index),
    order.map((position) => utility[position] ?? 0),
  );
}

/**
 * [ext] The elicited utilities scored against the simulator's true objective [SPECS §3.6,
 * oracle audit]: Kendall τ-b between the expected utilities and the objective per option, and
 * how often the model's pairwise preferences (scenarios of different options, within a
 * batch) agree with the objective. Both are 1 when the rankings follow the simulator.
 */
function emitAudit(run: RunContext, result: ProblemResult, simulation: SimulationResult): void {
  const detail = result.dellma;
  if (!detail) return;
  const sign = simulation.direction === 'minimize' ? -1 : 1;
  const rawOutcome = (action: string): number | null => simulation.candidates.find((candidate) => candidate.candidate === action)?.after ?? null;
  // Signed so that larger is better whichever way the objective points.
  const outcomeOf = (action: string): number | null => {
    const raw = rawOutcome(action);
    return raw === null ? null : sign * raw;
  };
  const rows = result.actions.map((action, index) => ({ action, expected: detail.expected[index] ?? null, outcome: rawOutcome(action) }));
  const scored = rows.filter((row): row is { action: string; expected: number; outcome: number } => row.expected !== null && row.outcome !== null);
  const tau = kendallTau(
    scored.map((row) => row.expected),
    scored.map((row) => sign * row.outcome),
  );
  let compared = 0;
  let agreed = 0;
  for (const batch of detail.batches) {
    const order = batch.order ?? [];
    for (let i = 0; i < order.length; i++) {
      for (let j = i + 1; j < order.length; j++) {
        const better = outcomeOf(result.actions[detail.items[order[i] as number]?.action ?? -1] ?? '');
        const worse = outcomeOf(result.actions[detail.items[order[j] as number]?.action ?? -1] ?? '');
        if (better === null || worse === null || better === worse) continue;
        compared++;
        if (better > worse) agreed++;
      }
    }
  }
  const audit: DellmaAudit = { tau, pairAgreement: compared ? agreed / compared : null, comparedPairs: compared, objective: simulation.objective, rows };
  emitStep(
    run,
    'audit',
    audit,
    `[ext] Kendall τ between the expected utilities and the simulator's ${simulation.objective} over ${scored.length} options: ${tau === null ? 'n/a' : tau.toFixed(3)}; the model's pairwise preferences agree with it in ${audit.pairAgreement === null ? 'n/a' : `${(100 * audit.pairAgreement).toFixed(1)}%`} of ${compared} pairs.`,
    'audit',
  );
}
