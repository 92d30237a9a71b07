/** What-if sandbox: public API for cells, the model's tool and the CLI. */
export { runWhatIf, type WhatIfOptions } from './run-whatif';
export { runWhatIfOnConnection, runWhatIfFor, candidatesFromQuery, whatIfSupport, type RunWhatIf } from './connection-whatif';
export { formatWhatIfForModel } from './format-for-model';
export { rankCandidates, withinRelative, type Measured, type Ranking } from './rank-candidates';
export { whatIfParamsSchema, type WhatIfInput, type WhatIfParams } from './whatif-params';
export {
  whatIfResultSchema,
  whatIfRowSchema,
  whatIfSpecSchema,
  WHATIF_MAX_CANDIDATES,
  WHATIF_DEFAULT_TIMEOUT_MS,
  WHATIF_DEFAULT_TOLERANCE,
  type Candidate,
  type WhatIfResult,
  type WhatIfRow,
  type WhatIfSpec,
} from '../contract/whatif';
