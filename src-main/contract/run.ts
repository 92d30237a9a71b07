import { z } from 'zod';
import { engineSchema, queryResultSchema } from './data';
import { resolvedFidelitySchema, techniqueFidelitySchema } from './fidelity';
import { workbenchErrorSchema } from './error-schema';
import { decisionOriginSchema, producedBySchema } from './produced-by';
import { simulationResultSchema, verificationSchema } from './simulation';
import { whatIfResultSchema, whatIfSpecSchema } from './whatif';

/**
 * A technique's id. The techniques are registered in the main process
 * (src-main/engine/techniques/registry.ts), which refuses an id it does not know; the contract
 * only fixes the form, so adding a technique does not change the contract.
 */
export const techniqueIdSchema = z.string().regex(/^[a-z][a-z0-9-]*$/, 'a technique id is lower-case letters, digits and dashes');
export type TechniqueIdValue = z.infer<typeof techniqueIdSchema>;

/** What a step-through run can stop for the analyst to review: the forms the review panel and the run log know. */
export const reviewSubjectSchema = z.enum(['query', 'replan', 'forecast', 'ranking', 'plan']);
export type ReviewSubject = z.infer<typeof reviewSubjectSchema>;

/** One kind of stop a technique makes in step-through, as its definition declares it: the form, and what is reviewed in words ("each query", "the program before it runs"). */
export const reviewPointSchema = z.object({ subject: reviewSubjectSchema, what: z.string() });
export type ReviewPoint = z.infer<typeof reviewPointSchema>;

/** A registered technique as pickers show it (the run composer, the benchmark), with its extensions and paper settings for the Fidelity setting and the stops it makes in step-through. */
export const techniqueInfoSchema = z.object({ id: techniqueIdSchema, label: z.string(), summary: z.string(), fidelity: techniqueFidelitySchema, reviews: z.array(reviewPointSchema) });
export type TechniqueInfo = z.infer<typeof techniqueInfoSchema>;

export const runStatusSchema = z.enum(['running', 'interrupted', 'answered', 'step-limit', 'token-limit', 'time-limit', 'failed', 'stopped', 'cancelled']);
export type RunStatus = z.infer<typeof runStatusSchema>;

const usageSchema = z.object({ promptTokens: z.number(), completionTokens: z.number(), totalTokens: z.number() }).nullable();
const toolCallSchema = z.object({ id: z.string(), name: z.string(), arguments: z.string() });

/**
 * Identifies the data a run read: sha256 of the canonical JSON of the schema's structure (row
 * counts left out) and, for file databases, sha256 of the file's bytes (a folder's files in
 * name order). Recorded so a report can say later whether the database is still the same.
 */
export const connectionFingerprintSchema = z.object({
  schemaHash: z.string(),
  fileHash: z.string().nullable(),
  fileBytes: z.number().nullable(),
});
export type ConnectionFingerprint = z.infer<typeof connectionFingerprintSchema>;

/**
 * One step of a plan, addressable by its id: a linear plan is a chain (each step depends on
 * the one before), a plan graph (Plan*RAG) or a program (Pearl) names its own dependencies.
 */
export const planNodeSchema = z.object({ id: z.string().min(1), text: z.string(), dependsOn: z.array(z.string()) });
export type PlanNode = z.infer<typeof planNodeSchema>;

/** A list of steps as a chain of nodes s1 → s2 → …: how a linear plan, and a plan logged before ids existed, is read. */
export function chainPlan(steps: readonly string[]): PlanNode[] {
  return steps.map((text, index) => ({ id: `s${index + 1}`, text, dependsOn: index === 0 ? [] : [`s${index}`] }));
}

/** The nodes of a plan or re-plan event; events logged before ids existed read as a chain. */
export function planNodesOf(event: { steps: readonly string[]; nodes?: PlanNode[] | undefined }): PlanNode[] {
  return event.nodes ?? chainPlan(event.steps);
}

/** The plan node an event works on, when the technique knows it (optional: old logs and flat techniques have none). */
const nodeField = z.string().min(1).optional();

/**
 * Everything that happens in a decision run, in order. The run log stores these events; the
 * notebook cells, the live view, the transcript and the reports are all read from them.
 */
export const runEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('run-start'),
    technique: techniqueIdSchema,
    question: z.string(),
    rules: z.string(),
    mode: z.enum(['auto', 'step']),
    connection: z.object({
      engine: engineSchema,
      description: z.string(),
      /** What the data looked like when the run began (src-main/audit/connection-fingerprint.ts). */
      fingerprint: connectionFingerprintSchema.optional(),
    }),
    model: z.object({
      description: z.string(),
      toolMode: z.enum(['tools', 'text']),
      /** The API root (credentials removed), the model name and the sampling settings used. */
      endpoint: z.string().optional(),
      name: z.string().optional(),
      temperature: z.number().optional(),
      maxTokens: z.number().optional(),
      /** A local model's CPU threads: the count, whether `auto` measured it, and the tokens/s of each count tried. */
      threads: z.object({ count: z.number(), auto: z.boolean(), measured: z.record(z.string(), z.number()) }).optional(),
    }),
    limits: z.object({ maxSteps: z.number(), maxTokens: z.number().nullable(), maxDurationMs: z.number() }),
    /** The playbook an AutoPlan run followed: its text, the text's sha256 and the workspace version's hash (null for a plain file). */
    playbook: z.object({ version: z.string().nullable(), sha256: z.string(), text: z.string() }).optional(),
    /** Documents the analyst attached to the run (name, length, the text's sha256); DeLLMa reads them into its context. */
    documents: z.array(z.object({ name: z.string(), chars: z.number(), sha256: z.string() })).optional(),
    /** The run's fidelity to its paper: temperature, per-call token limits, every extension on or off (contract/fidelity.ts); absent in logs written before it. */
    fidelity: resolvedFidelitySchema.optional(),
    /** The technique's own options as its schema read them (absent: none given, its defaults); the produced-by record lists them with the settings. */
    techniqueOptions: z.record(z.string(), z.unknown()).optional(),
    /** How results name the variant those options make (DeLLMa: "top1, s=4, b=8, q=0.25"); absent when none is named. */
    variant: z.string().optional(),
  }),
  /** `node` and `purpose` when a technique asks on behalf of a plan node (e.g. Q2.1, `answer`). */
  z.object({ type: z.literal('model-request'), step: z.number(), tools: z.array(z.string()), messageCount: z.number(), node: nodeField, purpose: z.string().optional() }),
  z.object({
    type: z.literal('model-response'),
    step: z.number(),
    content: z.string(),
    toolCalls: z.array(toolCallSchema),
    usage: usageSchema,
    latencyMs: z.number(),
    /** How the reply was held to its structure (`grammar`, `tool-choice`, `json-schema`, `none`); absent in older logs. */
    constrained: z.enum(['grammar', 'tool-choice', 'json-schema', 'none']).optional(),
    /** The model as the server named it in its response (absent in older logs). */
    model: z.string().optional(),
    node: nodeField,
  }),
  z.object({ type: z.literal('thought'), step: z.number(), text: z.string(), node: nodeField }),
  /** `steps` are the nodes' texts in order (what every reader shows); `nodes` carry ids and dependencies (absent in old logs). */
  z.object({ type: z.literal('plan'), step: z.number(), steps: z.array(z.string()), nodes: z.array(planNodeSchema).optional() }),
  z.object({
    type: z.literal('replan'),
    step: z.number(),
    previous: z.array(z.string()),
    steps: z.array(z.string()),
    nodes: z.array(planNodeSchema).optional(),
    reason: z.string(),
    author: z.enum(['model', 'analyst']),
  }),
  z.object({
    type: z.literal('query-start'),
    step: z.number(),
    queryId: z.string(),
    query: z.string(),
    author: z.enum(['model', 'analyst']),
    node: nodeField,
    /** Named parameters bound to the query, when it had any. */
    params: z.record(z.string(), z.unknown()).optional(),
  }),
  z.object({
    type: z.literal('query-end'),
    step: z.number(),
    queryId: z.string(),
    result: queryResultSchema.nullable(),
    error: workbenchErrorSchema.nullable(),
    /** sha256 of the full result (columns and rows), so a report can prove what was seen. */
    digest: z.string().nullable(),
  }),
  z.object({ type: z.literal('observation'), step: z.number(), queryId: z.string().nullable(), text: z.string(), node: nodeField }),
  z.object({ type: z.literal('analyst-review'), step: z.number(), node: nodeField, action: z.enum(['approve', 'edit', 'skip', 'note', 'stop']), subject: reviewSubjectSchema, original: z.string(), edited: z.string().nullable(), note: z.string().nullable() }),
  z.object({ type: z.literal('model-repair'), step: z.number(), problem: z.string() }),
  /** The run went on after the app stopped mid-run; the last unfinished model call is made again. */
  z.object({ type: z.literal('run-resume'), step: z.number(), messageCount: z.number() }),
  z.object({
    type: z.literal('decision'),
    step: z.number(),
    decision: z.string(),
    rationale: z.string(),
    evidence: z.array(z.string()),
    /** The simulator's check of the decision, when a simulator fits the data and the question's parameters are known. */
    verification: verificationSchema.nullable().optional(),
    /** Why no simulator checked the decision ("no simulator recognises this schema", "the question names no home node"); absent when checked, and in logs from before. */
    unchecked: z.string().optional(),
    /** Set when the decision was computed in code, not written by the model (DeLLMa: "expected utility"). */
    computedBy: z.string().optional(),
    /** Who made it: the technique (a fallback named as such) and whether it repeats a simulate/whatif ranking (absent in older logs). */
    origin: decisionOriginSchema.optional(),
  }),
  /** A simulator run, asked for by the model (`simulate`) or by the workbench to check a decision. */
  z.object({
    type: z.literal('simulation'),
    step: z.number(),
    node: nodeField,
    requested: z.array(z.string()).nullable(),
    result: simulationResultSchema,
    /** Run by the workbench to check a decision, not asked for by the model (absent in older logs). */
    check: z.boolean().optional(),
  }),
  /** A what-if experiment the model asked for (`whatif`), run on a throwaway copy of the data; a failed one keeps its error. */
  z.object({ type: z.literal('whatif'), step: z.number(), node: nodeField, spec: whatIfSpecSchema, result: whatIfResultSchema.nullable(), error: workbenchErrorSchema.nullable() }),
  /**
   * A call of a tool that has no event of its own (a tool added after these): what it was asked
   * and what the model was told. Cells come from the tool's own projection; reports show it as it is.
   */
  z.object({ type: z.literal('tool'), step: z.number(), node: nodeField, tool: z.string(), input: z.unknown(), output: z.string() }),
  z.object({
    type: z.literal('run-end'),
    status: runStatusSchema,
    message: z.string().nullable(),
    steps: z.number(),
    totalTokens: z.number(),
    /** What produced the run's result, written once at its end (absent in older logs: derived from their events). */
    producedBy: producedBySchema.optional(),
  }),
]);
export type RunEvent = z.infer<typeof runEventSchema>;
export type RunEventType = RunEvent['type'];

/** What the run asks the analyst in step-through mode. */
export const reviewRequestSchema = z.discriminatedUnion('subject', [
  z.object({ subject: z.literal('query'), step: z.number(), node: nodeField, question: z.string().optional(), query: z.string() }),
  z.object({ subject: z.literal('replan'), step: z.number(), node: nodeField, steps: z.array(z.string()), reason: z.string() }),
  z.object({ subject: z.literal('forecast'), step: z.number(), node: nodeField, steps: z.array(z.string()), reason: z.string() }),
  z.object({ subject: z.literal('ranking'), step: z.number(), node: nodeField, steps: z.array(z.string()), reason: z.string() }),
  /** A plan graph (Plan*RAG) before it runs, as JSON; `problem` says why the analyst's last edit was refused. */
  z.object({ subject: z.literal('plan'), step: z.number(), node: nodeField, plan: z.string(), problem: z.string().nullable() }),
]);

/**
 * The key a pending review is kept and answered by: its model step and, for a plan node or a
 * program step, the node (`"7"`, `"7:Q1.2"`). Calls in flight at once get their own step
 * numbers, so reviews waiting side by side (a plan graph's level, Pearl's parallel steps) never
 * share a key.
 */
export function reviewKeyOf(review: { step: number; node?: string | undefined }): string {
  return review.node ? `${review.step}:${review.node}` : String(review.step);
}

export const reviewDecisionSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('approve') }),
  z.object({ action: z.literal('edit'), query: z.string().min(1).optional(), steps: z.array(z.string().min(1)).min(1).optional(), plan: z.string().min(1).optional(), note: z.string().optional() }),
  z.object({ action: z.literal('skip'), note: z.string().optional() }),
  z.object({ action: z.literal('note'), note: z.string().min(1) }),
  z.object({ action: z.literal('stop') }),
]);

/**
 * How the run's decision was checked, for the run bar and the run histories: the simulator's verdict, or why it was
 * not checked (said as "not checked: <reason>", never a plain "Decided").
 */
export const decisionCheckSchema = z.discriminatedUnion('checked', [
  z.object({ checked: z.literal(true), agrees: z.boolean(), best: z.string(), regret: z.number().nullable(), objective: z.string() }),
  z.object({ checked: z.literal(false), reason: z.string() }),
]);
export type DecisionCheck = z.infer<typeof decisionCheckSchema>;

/** The check a decision event (or decision cell) records; a record from before reasons were kept reads "no simulator checked it". */
export function decisionCheck(decision: { verification?: z.infer<typeof verificationSchema> | null; unchecked?: string }): DecisionCheck {
  const verification = decision.verification ?? null;
  if (verification) return { checked: true, agrees: verification.agrees, best: verification.best, regret: verification.regret, objective: verification.objective };
  return { checked: false, reason: decision.unchecked ?? 'no simulator checked it' };
}

/** The check's kind, which the run bar and the run histories colour it by. */
export function decisionCheckKind(check: DecisionCheck): 'agrees' | 'disagrees' | 'unchecked' {
  if (!check.checked) return 'unchecked';
  return check.agrees ? 'agrees' : 'disagrees';
}

/** The check in words, the same in the run bar and the run histories: the verdict, or "not checked: <reason>". */
export function decisionCheckText(check: DecisionCheck): string {
  if (!check.checked) return `not checked: ${check.reason}`;
  return check.agrees ? '✓ simulator agrees' : `✗ simulator: best is ${check.best}${check.regret === null ? '' : `, regret ${check.regret.toPrecision(4)}`}`;
}

export const runSummarySchema = z.object({
  id: z.string(),
  notebookId: z.string(),
  technique: techniqueIdSchema,
  mode: z.enum(['auto', 'step']),
  status: runStatusSchema,
  question: z.string(),
  decision: z.string().nullable(),
  /** Who made the decision (the technique, a fallback, tool-assisted); null without a decision or for runs stored before it was kept. */
  decidedBy: decisionOriginSchema.nullable(),
  /** How the decision was checked; null without a decision or for runs stored before it was kept. */
  check: decisionCheckSchema.nullable(),
  message: z.string().nullable(),
  createdAt: z.string(),
  endedAt: z.string().nullable(),
});
export type RunSummary = z.infer<typeof runSummarySchema>;

/** Pushed while a run is live: enough for the progress bar and the review panel. */
export const runProgressSchema = z.object({
  runId: z.string(),
  notebookId: z.string(),
  technique: techniqueIdSchema,
  status: runStatusSchema,
  /** `step` waits for the analyst at every query and re-plan; switching to it pauses an automatic run. */
  mode: z.enum(['auto', 'step']),
  step: z.number(),
  maxSteps: z.number(),
  startedAt: z.string(),
  totalTokens: z.number(),
  /** The review the analyst answers next: the oldest of `pendingReviews`; null when nothing waits. */
  pendingReview: reviewRequestSchema.nullable(),
  /** Every review waiting, oldest first, each answered by its key (`reviewKeyOf`); absent in progress from older versions. */
  pendingReviews: z.array(reviewRequestSchema).optional(),
  /** The language the run's queries are written in, so a query under review is edited as such (absent: SQL). */
  queryLanguage: z.enum(['sql', 'cypher']).optional(),
  message: z.string().nullable(),
  /** Set once the run has decided: the simulator's verdict or why there is none. */
  check: decisionCheckSchema.optional(),
  /** Who made the decision, once the run has one (a fallback or a tool-assisted decision says so). */
  decidedBy: decisionOriginSchema.nullable().optional(),
  /** A local model's CPU threads, as its run-start event records them (absent for a server). */
  threads: z.object({ count: z.number(), auto: z.boolean() }).optional(),
});
export type RunProgress = z.infer<typeof runProgressSchema>;

export type ReviewDecisionInput = z.input<typeof reviewDecisionSchema>;
export type ReviewRequestValue = z.infer<typeof reviewRequestSchema>;
