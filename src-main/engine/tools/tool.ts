import type { z } from 'zod';
import type { CellOutput } from '../../contract/notebook';
import type { ReviewPoint, RunEvent } from '../../contract/run';
import type { Author, CellKindData } from '../../contract/notebook';
import type { ToolContext, ToolStateChanges } from './tool-context';

export type { ToolContext, ToolMemo, ToolStateChanges } from './tool-context';

/** A reply in the plain-text protocol, split into its labelled sections (see ../text-protocol.ts). */
export interface TextReply {
  /** The body of a section by its lower-case label ("plan", "final answer", …). */
  section(name: string): string | undefined;
  /** The lower-cased `Action:` and its `Action Input:` (fences stripped), when the reply has them. */
  action: { name: string; input: string } | null;
}

/** What performing a call came to. */
export type ToolOutcome =
  /**
   * The text the model reads as the tool's answer; `failed` when the call did not work (a query
   * error), so repeats can be caught; `stateChanges` what the executor applies to the run.
   */
  | { reply: string; failed?: boolean; stateChanges?: ToolStateChanges }
  /** The model's final answer: the technique ends the run with it. */
  | { answer: { decision: string; rationale: string } }
  /** The analyst stopped the run at a review point. */
  | { stop: string };

/** A cell as a projection writes it: the writer adds the run's provenance (step, node) and connection. */
export type CellDraft = { author: Author; source: string; connectionId?: string | null; node?: string | undefined } & CellKindData;

/** Where a tool's events go in the notebook (see ../run-cells.ts). */
export interface CellWriter {
  readonly connectionId: string | null;
  /** Adds a cell after the run's previous one and returns its id. */
  add(step: number | undefined, draft: CellDraft): string;
  saveOutput(cellId: string, output: CellOutput): void;
  /** The query cells of this run, by query id (evidence and observations link to them). */
  readonly queryCells: Map<string, string>;
  /** Rewrites the text and kind data of a cell this run added. */
  rewrite(cellId: string, content: { source: string; data: Record<string, unknown> }): void;
  /** Cells that later events of the run add to, by a key the projection chooses, with the text and data written so far. */
  readonly gathering: Map<string, { cellId: string; source: string; data: Record<string, unknown> }>;
}

type EventOf<T extends RunEvent['type']> = Extract<RunEvent, { type: T }>;
/** How events of one type become cells. */
export type CellProjection = { [T in RunEvent['type']]?: (event: EventOf<T>, at: string, cells: CellWriter) => void };

/**
 * One tool the model can call, defined once: its name, arguments, description, plain-text form,
 * how it is performed, and how the events it emits become cells. Reports read the same events
 * through `TraceReader` (audit/run-trace.ts); a new tool with no event of its own emits the
 * generic `tool` event, which reports show as it is.
 */
export interface ToolDefinition<A = unknown> {
  name: string;
  arguments: z.ZodType<A>;
  /** What the model is told the tool does; `dialect` names the query language of the database. */
  description(dialect: string): string;
  /** The reply form of the plain-text protocol for models without tool calling. */
  textForm: string;
  /** Section labels this tool's text form uses besides `Action`/`Action Input`. */
  textSections?: readonly string[];
  /** The arguments of this tool's call in a plain-text reply, if the reply makes one. */
  fromText(reply: TextReply): unknown;
  /**
   * What makes a call that passed its schema still unusable (a decision that is no candidate),
   * checked before it is performed; null when it is fine. The model is asked again, bounded.
   */
  check?(args: A, tools: ToolContext): Promise<string | null>;
  /** The JSON schema offered for this run, when it can be narrower than the zod schema's (the candidate ids as an enum). */
  narrowSchema?(schema: Record<string, unknown>, tools: ToolContext): Promise<Record<string, unknown>>;
  /**
   * Carries out a validated call through the narrow context (never the run: what it changes is
   * returned in the outcome); never throws for the model's or the data's mistakes.
   */
  perform(args: A, call: { step: number; node?: string }, tools: ToolContext): Promise<ToolOutcome>;
  /** The stop it makes for the analyst in step-through, if it makes one; a conversation declares the stops of the tools it can offer. */
  reviews?: ReviewPoint;
  /** Events this tool emits, projected into notebook cells. */
  cells?: CellProjection;
  /** No call after this one in the same reply is carried out (the final answer). */
  final?: boolean;
}

/** Defines a tool with its argument type checked against its schema. */
export function defineTool<S extends z.ZodType>(definition: ToolDefinition<z.infer<S>> & { arguments: S }): ToolDefinition {
  return definition as unknown as ToolDefinition;
}

/** A numbered list, as plans are shown. */
export function numbered(steps: readonly string[]): string {
  return steps.map((step, index) => `${index + 1}. ${step}`).join('\n');
}
