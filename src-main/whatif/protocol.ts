/** Messages the what-if runner sends to its worker process (see ./worker.ts). */
import type { Candidate } from '../contract/whatif';
import type { SandboxKind } from './sandbox-kind';

export type WhatIfRequest =
  /** Opens the copy and validates the statements; repeated after a restart. */
  | { type: 'open'; kind: SandboxKind; copyPath: string; change: string; objective: string }
  | { type: 'evaluate'; candidate: Candidate };
