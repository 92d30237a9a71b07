/** What-if sandbox: public API for cells, the model's tool and the CLI. */
export { runWhatIf, type WhatIfOptions } from './run-whatif';
export { rankCandidates, withinRelative, type Measured, type Ranking } from './rank-candidates';
export {
  whatIfParamsSchema,
  whatIfResultSchema,
  whatIfRowSchema,
  MAX_CANDIDATES,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_TOLERANCE,
  type Candidate,
  type WhatIfInput,
  type WhatIfParams,
  type WhatIfResult,
  type WhatIfRow,
} from './whatif-params';
