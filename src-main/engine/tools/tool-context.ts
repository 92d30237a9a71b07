import type { Engine } from '../../contract/data';
import type { ResolvedFidelity } from '../../contract/fidelity';
import type { RunEvent } from '../../contract/run';
import type { SimulationResult } from '../../contract/simulation';
import type { Connector } from '../../connectors/connector';
import type { RunSimulator } from '../../simulators/run-simulator';
import type { RunWhatIf } from '../../whatif/connection-whatif';
import type { ReviewGate } from '../review-gate';

/**
 * What a tool may read and use while it is checked or performed — the run's connection and
 * schema, its simulator and what-if sandbox, the query limits, the stop signal, the review gate,
 * and a recorder for events (which become cells) — and never the run itself. A tool says what it
 * changes in its outcome (`ToolStateChanges`) and the turn executor (../run-context.ts) applies
 * it, so the run's counters, plan and evidence have one writer.
 */
export interface ToolContext {
  readonly engine: Engine;
  /** The run's read-only connection: the queries tools run and the schema their feedback names. */
  readonly connector: Pick<Connector, 'query' | 'schema'>;
  /** The simulator that fits the run's data, or null. */
  readonly simulator: RunSimulator | null;
  /** Why the decision will not be checked, decided before the run; null: checked when it can be. */
  readonly uncheckedReason: string | null;
  /** The what-if sandbox on a copy of the data, or null where the data cannot be copied. */
  readonly whatIf: RunWhatIf | null;
  readonly gate: ReviewGate;
  /** The run's fidelity to its paper (which extensions are on); absent: the product's, every extension on. */
  readonly fidelity: ResolvedFidelity | undefined;
  readonly limits: { readonly queryMaxRows: number; readonly queryTimeoutMs: number };
  readonly signal: AbortSignal | undefined;
  /** What the run knows that tools read, as it stands when read (a live view; changes go through outcomes). */
  readonly known: {
    readonly plan: readonly string[];
    /** The query ids of the rows read so far, cited by the decision. */
    readonly evidence: readonly string[];
    /** The last simulation (the model's or the check's), which the answer is checked against. */
    readonly lastSimulation: SimulationResult | null;
  };
  /** Records an event in the run's log, in order (the tool's `cells` project it into the notebook). */
  emit(event: RunEvent): void;
  /** The id of the next query of the run. */
  newQueryId(): string;
  /** What the run's tools keep between calls (one per run, shared by all its tool contexts). */
  readonly memo: ToolMemo;
}

/** What a run's tools remember between calls: the simulator's answers for the question's own parameters. */
export interface ToolMemo {
  /** The candidates a quiet simulation with the known parameters lists (asked once per run). */
  knownCandidates?: Promise<string[] | null>;
  /** Why that simulation failed, for "not checked: the simulator failed: …". */
  knownFailure?: string;
}

/** What a performed call changes in the run's state; the executor applies it after the call. */
export interface ToolStateChanges {
  /** The plan now followed (a plan, a re-plan); `planned` once the run has made one. */
  plan?: string[];
  planned?: true;
  /** Queries handled (run or skipped by the analyst), added to the run's count. */
  queries?: number;
  /** Query ids whose rows were read, added to the evidence. */
  evidence?: string[];
  /** The simulation the decision will be checked against. */
  lastSimulation?: SimulationResult;
}
