import { z } from 'zod';
import { errorCodes, type SerializedError } from './errors';

/** The zod schema of a SerializedError, for contracts that embed one (errors.ts stays free of zod). */
export const workbenchErrorSchema = z.object({
  name: z.literal('WorkbenchError'),
  code: z.enum(errorCodes),
  message: z.string(),
  /** True when the same request may succeed later (a timeout, a busy server). */
  retryable: z.boolean(),
}) satisfies z.ZodType<SerializedError>;
