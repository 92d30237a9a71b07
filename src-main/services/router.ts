import { api, type Method, type Result } from '../contract/api';
import { WorkbenchError } from '../contract/errors';
import type { z } from 'zod';

export type Handlers = {
  [M in Method]: (params: z.output<(typeof api)[M]['params']>) => Promise<Result<M>> | Result<M>;
};

/** One group of Handlers: the requests whose names start with one of `Prefix` (e.g. `'connections/'`). */
export type HandlersFor<Prefix extends string> = Pick<Handlers, Extract<Method, `${Prefix}${string}`>>;

/**
 * The main-process boundary: every request from any transport is checked against the
 * contract before a handler sees it, so handlers can trust their parameters.
 */
export function createRouter(handlers: Handlers): (method: string, params: unknown) => Promise<unknown> {
  return async (method, params) => {
    if (!Object.hasOwn(api, method)) throw new WorkbenchError('invalid-request', `Unknown request "${method}"`);
    const name = method as Method;
    const parsed = api[name].params.safeParse(params ?? {});
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'request'}: ${issue.message}`).join('; ');
      throw new WorkbenchError('invalid-request', `Invalid ${name} request: ${issues}`);
    }
    const handler = handlers[name] as (params: unknown) => unknown;
    return handler(parsed.data);
  };
}
