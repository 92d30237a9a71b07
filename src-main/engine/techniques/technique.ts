import type { z } from 'zod';
import type { RunExtension } from '../../contract/fidelity';
import type { RunContext, RunOutcome } from '../run-context';
import type { ActionLibrary } from './pearl/library';
import type { StructuredReply } from './structured-replies';
import type { ReviewPoint, RunEvent } from '../../contract/run';
import type { CellWriter } from '../tools/tool';
import type { ReportItemBlocks, ReportSectionBlocks } from '../../contract/report-blocks';

/** One command-line flag of a technique (`dwb run`, `dwb dqa solve`); their usage lines are generated from these. */
export interface TechniqueFlag {
  /** Without the dashes: `variant` is `--variant`. */
  name: string;
  /** What the value looks like in a usage line: `pairs|top1`, `N`, `LIB.json`. */
  value: string;
  /** One short sentence for help text. */
  description: string;
}

/**
 * What a technique's options are, as the technique owns them (the way an AI SDK provider reads
 * its own `providerOptions`): `runs/start` takes them as a generic `techniqueOptions` object,
 * the run manager checks them with `schema` and stores them with the run, the CLI builds them
 * from `flags`, and the run reads them back with `optionsOf` (./technique-options.ts).
 */
export interface TechniqueOptions<Options> {
  /** The options as runs/start takes and stores them (plain JSON); `{}` parses to the defaults. */
  schema: z.ZodType<Options>;
  flags: readonly TechniqueFlag[];
  /**
   * The options the given flags ask for (only this technique's flags, at least one), before the
   * schema checks them; a value that cannot be read is refused naming its flag.
   */
  fromFlags(values: Readonly<Record<string, string>>): unknown;
  /** The flag an options field is given with (`perAction` → `--samples`), so a refusal names what was typed. */
  flagOf?(field: string): string | undefined;
  /** Why the question cannot be run with these options, refused by runs/start before anything is stored or asked of the model (DeLLMa without two options). */
  optionsProblem?(question: string, options: Options): string | null;
  /** Checks what the options refer to with the host (a workspace action library), before the run is stored; throws a WorkbenchError. */
  check?(options: Options, host: TechniqueHost): void;
  /** How results name the variant these options make (DeLLMa: "pairs, s=16, b=32, q=0.25"); null: none worth naming. */
  variantLabel?(options: Options): string | null;
}

/**
 * What the process running a technique lends it beyond the run's data and model: the app's
 * workspace, or the CLI's files. A technique that needs a new kind of workspace resource adds
 * it here and in the hosts (services/run-manager.ts, cli/technique-flags.ts).
 */
export interface TechniqueHost {
  /** An action library by reference: a workspace library id in the app, a library file with `dwb run --actions`. */
  actionLibrary?(reference: string): ActionLibrary;
  /** Counts the library actions a run called toward that library's usage (the app's workspace). */
  recordActionUsage?(reference: string, actionsCalled: readonly string[]): void;
}

/**
 * A decision technique: a strategy over the shared turn executor (../run-context.ts). It
 * decides which conversations to hold with the model, which tools to offer when, and when the
 * run is over; asking, validating, repairing, performing and recording are the executor's.
 * One conversation (PlanRAG and its baselines, ./conversation.ts) is one such strategy; a DAG
 * of sub-questions, a plan program or a batch of rankings are others.
 */
export interface TechniqueDefinition {
  /** Lower-case letters, digits and dashes: how runs, the CLI and the benchmark name it. */
  id: string;
  label: string;
  summary: string;
  /** The `# Method` section of the system prompt. */
  method: string;
  /** Places the run's playbook (if one is given) in the task message (AutoPlan). */
  usesPlaybook?: boolean;
  /** Reads the documents attached to the run into its context (DeLLMa); the others are not given them. */
  usesDocuments?: boolean;
  /** Sampling temperature of the technique's turns, overriding the provider's (AutoPlan decodes greedily). */
  temperature?: number;
  /** Its own options; absent: the technique takes none, and options given to it are refused. Declare with `declareOptions`. */
  options?: TechniqueOptions<unknown>;
  /**
   * Its own product extensions, each a named, labelled toggle with what its paper did instead
   * and its default per fidelity (contract/fidelity.ts). The run reads one with
   * `extensionOn(run.options.fidelity, <the declaration>)`; run-start, the produced-by record,
   * `runs/techniques` (the Fidelity setting) and `--extension ID=on|off` see them all.
   */
  extensions?: readonly RunExtension[];
  /** The shared extensions (contract/fidelity.ts `sharedExtensions`) it has beyond those of every technique: the simulate and what-if tools a conversation offers. */
  sharedExtensions?: readonly string[];
  /** Its paper's own settings, applied at `paper` fidelity; absent: the fidelity's defaults. */
  paperSettings?: PaperSettings;
  /**
   * Every structured reply it asks for: the JSON schemas it sends as a reply's format and the
   * tools it offers (./structured-replies.ts). A request it sends carries only these; a reply in
   * plain text (a query written out) carries neither.
   */
  structuredReplies: readonly StructuredReply[];
  /**
   * Every kind of stop it makes for the analyst in step-through (required; empty: it never stops).
   * The composer and the run bar say them in words, and the run's review gate refuses a review
   * it does not declare (../run-setup.ts), so every run checks the declaration.
   */
  reviews: readonly ReviewPoint[];
  /** How its own `tool` events become notebook cells (../run-cells.ts); absent: each is a plain observation cell. */
  cells?: TechniqueCells;
  /** How its own steps and records read in a report (../../reports/report-model.ts); absent: each step as its raw record. */
  reports?: TechniqueReports;
  /** Runs an analyst's program instead of planning one (Pearl's program cell: `pearl/run-program`, `pearl/rerun-step`). */
  runsPrograms?: boolean;
  /** Runs the decision after `run-start`; ends with `run.finish(…)`'s outcome. */
  run(run: RunContext): Promise<RunOutcome>;
}

/**
 * How a technique's own `tool` events (the names it logs its steps under) become notebook cells,
 * as a tool's `cells` do for its events: the run's cell writer asks the technique whose prefix
 * the event's name has.
 */
export interface TechniqueCells {
  /** The name prefixes of its tool events (`pearl-`, `dellma.`): their observation cells keep the event's structured input, which the notebook's views of the technique draw from. */
  toolPrefixes: readonly string[];
  /** Writes the cells of one of its events itself and returns true (Pearl gathers its program attempts into one cell); false: the observation cell. */
  project?(event: Extract<RunEvent, { type: 'tool' }>, cells: CellWriter): boolean;
}

/**
 * How a technique's own `tool` events read in a report, in format-free blocks
 * (contract/report-blocks.ts) that every report renderer lays out; the report asks the technique
 * whose `cells.toolPrefixes` the event's name has, as the notebook's cell writer does.
 */
export interface TechniqueReports {
  /** One of its step records (the event's fields: `tool`, `input`, `output`) as a trace item; null: shown as the raw record. */
  item?(fields: Readonly<Record<string, unknown>>): ReportItemBlocks | null;
  /** Sections of its own from all of its step records in the run, in the order they were logged. */
  sections?(records: readonly Readonly<Record<string, unknown>>[]): ReportSectionBlocks[];
}

/** What a technique's paper did that `paper` fidelity keeps. */
export interface PaperSettings {
  /** The token limits per call its paper used, by call purpose (Pearl: plan 256, step 512). */
  callTokens?: Readonly<Record<string, number>>;
  /** Shared extensions its paper already had, so they stay on at `paper` (AutoPlan's augmented feedback). */
  keeps?: readonly string[];
}

/**
 * A technique's options declaration, typed by its own schema. Stored as `TechniqueOptions<unknown>`
 * on the definition: every reader parses with `schema` first (./technique-options.ts), so the
 * hooks only ever see values of `Options`.
 */
export function declareOptions<Options>(declaration: TechniqueOptions<Options>): TechniqueOptions<unknown> {
  return declaration as unknown as TechniqueOptions<unknown>;
}
