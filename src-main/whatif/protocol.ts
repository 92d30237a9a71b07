/** Messages the what-if runner sends to its worker process (see ./worker.ts). */
import type { Candidate } from '../contract/whatif';
import type { SandboxKind } from './sandbox-kind';
import type { LabelledChange } from './sandbox-session';

export type WhatIfRequest =
  /** Opens the copy and validates the statements; repeated after a restart. */
  | { type: 'open'; kind: SandboxKind; copyPath: string; change: string; objective: string }
  | { type: 'evaluate'; candidate: Candidate }
  /** A scenario session: several changes, of which each evaluation applies some, in order. */
  | { type: 'open-scenarios'; kind: SandboxKind; copyPath: string; changes: LabelledChange[]; objective: string }
  | { type: 'evaluate-steps'; steps: number[]; candidate: Candidate };
