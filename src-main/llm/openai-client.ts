import OpenAI from 'openai';
import type { ProviderSettings } from './settings';

/** Local servers ignore the key, but the SDK refuses to start without one. */
const placeholderApiKey = 'no-key-needed';

/** Per-call adjustments of the SDK client. */
export interface ClientOptions {
  /** Overrides `settings.maxRetries` (the connection test tries once). */
  maxRetries?: number;
  /** Called before each HTTP attempt, retries included, so errors can say how many were made. */
  onAttempt?: () => void;
  /** Epoch milliseconds at which the call gives up; server-requested retry waits are cut to it. */
  deadline?: number;
}

/**
 * An SDK client for one call. A fresh client per call is cheap and keeps the attempt counter
 * of concurrent calls apart. The SDK's own retries (408/409/429/5xx and network errors, with
 * exponential backoff and `retry-after`) are used as they are; its timeout is set too, but the
 * real bound is `withDeadline`, which also covers reading the body.
 */
export function createOpenAiClient(settings: ProviderSettings, options: ClientOptions = {}): OpenAI {
  return new OpenAI({
    baseURL: settings.baseUrl,
    apiKey: settings.apiKey || placeholderApiKey,
    timeout: settings.requestTimeoutMs,
    maxRetries: options.maxRetries ?? settings.maxRetries,
    // Errors are reported through WorkbenchErrors; the SDK's console logging would only duplicate them.
    logLevel: 'off',
    fetch: async (url, init) => {
      options.onAttempt?.();
      const response = await fetch(url, init);
      return options.deadline === undefined ? response : clampRetryAfter(response, options.deadline - Date.now());
    },
  });
}

/**
 * The SDK sleeps through a server's `retry-after` without watching the abort signal. The call
 * itself still ends at its deadline (`withDeadline`), but a `retry-after: 3600` would leave a
 * timer alive for an hour and keep a CLI process from exiting. Asking the SDK to wait no longer
 * than the time left makes it wake at the deadline, see the aborted signal and stop. The wait
 * runs a little past the deadline (`deadlineMarginMs`) so that the deadline, never a retry sent
 * in its last moment, ends the call, however late a loaded machine fires the timers.
 */
const deadlineMarginMs = 100;

export function clampRetryAfter(response: Response, remainingMs: number): Response {
  if (response.ok) return response;
  const requestedMs = requestedWaitMs(response.headers);
  if (requestedMs === null || requestedMs <= remainingMs) return response;
  const headers = new Headers(response.headers);
  headers.delete('retry-after');
  headers.set('retry-after-ms', String(Math.max(0, Math.ceil(remainingMs)) + deadlineMarginMs));
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** The wait a server asked for, read as the SDK reads it (`retry-after-ms`, then `retry-after`). */
function requestedWaitMs(headers: Headers): number | null {
  const milliseconds = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (!Number.isNaN(milliseconds)) return milliseconds;
  const retryAfter = headers.get('retry-after');
  if (!retryAfter) return null;
  const seconds = Number.parseFloat(retryAfter);
  if (!Number.isNaN(seconds)) return seconds * 1000;
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? null : date - Date.now();
}
