import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { WorkbenchError } from '../contract/errors';

/** What an error message needs to say where it happened. */
export interface FailureContext {
  /** Redacted base URL. */
  baseUrl: string;
  model: string;
  /** HTTP attempts made (1 when the SDK did not retry). */
  attempts: number;
}

/** The answer was received but is not an OpenAI chat completion; raised by the response readers. */
export class MalformedResponseError extends Error {
  override readonly name = 'MalformedResponseError';
}

/** The stream stopped before the server said the answer was finished. */
export class IncompleteStreamError extends Error {
  override readonly name = 'IncompleteStreamError';
}

/**
 * Maps whatever the SDK, fetch or the response readers threw to a WorkbenchError whose code the
 * UI can act on and whose message tells the analyst what to fix. `timeout` and `cancelled`
 * never arrive here: `withDeadline` raises them itself.
 */
export function toProviderError(error: unknown, context: FailureContext): WorkbenchError {
  if (error instanceof WorkbenchError) return error;
  const where = `the model server at ${context.baseUrl}`;
  const tries = context.attempts > 1 ? ` after ${context.attempts} attempts` : '';

  if (error instanceof APIConnectionTimeoutError) {
    return new WorkbenchError('timeout', `${capitalize(where)} did not answer in time${tries}.`, { cause: error });
  }
  if (error instanceof APIUserAbortError) {
    return new WorkbenchError('cancelled', 'The model request was cancelled.', { cause: error });
  }
  if (error instanceof APIConnectionError) {
    return new WorkbenchError('connection-failed', `Could not reach ${where}${tries}: ${describeNetworkFailure(error)}.`, {
      retryable: true,
      cause: error,
    });
  }
  if (error instanceof APIError) return fromHttpError(error, where, tries, context);
  if (error instanceof MalformedResponseError || error instanceof SyntaxError) {
    return new WorkbenchError('unsupported', `${capitalize(where)} sent an answer that is not an OpenAI-compatible chat completion: ${error.message}`, {
      cause: error,
    });
  }
  if (error instanceof IncompleteStreamError) {
    return new WorkbenchError('connection-failed', `${capitalize(where)} ${error.message}`, { retryable: true, cause: error });
  }
  if (isNetworkError(error)) {
    return new WorkbenchError('connection-failed', `${capitalize(where)} closed the connection mid-answer: ${describeNetworkFailure(error)}.`, {
      retryable: true,
      cause: error,
    });
  }
  return WorkbenchError.from(error);
}

function fromHttpError(error: APIError, where: string, tries: string, context: FailureContext): WorkbenchError {
  const status = error.status;
  const serverMessage = serverMessageOf(error);
  if (status === undefined) {
    // An `error` object inside a stream: the server gave up mid-answer.
    return new WorkbenchError('connection-failed', `${capitalize(where)} reported an error mid-answer: ${serverMessage}`, { cause: error });
  }
  if (status === 401 || status === 403) {
    const verb = status === 401 ? 'rejected the API key' : 'refused access to this model or key';
    return new WorkbenchError('connection-failed', `${capitalize(where)} ${verb} (HTTP ${status}: ${serverMessage}). Check the API key in the model settings.`, {
      retryable: false,
      cause: error,
    });
  }
  if (status === 404) {
    return new WorkbenchError(
      'not-found',
      `Model "${context.model}" not found at ${context.baseUrl} (HTTP 404: ${serverMessage}). Check the model name, and that the base URL is the API root (often ending in /v1).`,
      { cause: error },
    );
  }
  if (status === 408 || status === 409 || status === 429 || status >= 500) {
    return new WorkbenchError('connection-failed', `${capitalize(where)} answered HTTP ${status}${tries}: ${serverMessage}`, { retryable: true, cause: error });
  }
  return new WorkbenchError('invalid-request', `${capitalize(where)} rejected the request (HTTP ${status}): ${serverMessage}`, { cause: error });
}

/** The server's own words: `error.message` of the body, else the raw body text, else the status line. */
function serverMessageOf(error: APIError): string {
  const body: unknown = error.error;
  if (typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string') return body.message;
  if (typeof body === 'string' && body.length > 0) return body;
  // The SDK prefixes its message with the status; drop it to avoid saying it twice.
  return error.message.replace(/^\d{3}\s+/, '') || 'no error message';
}

const networkCodes: Record<string, string> = {
  ECONNREFUSED: 'connection refused (is the server running?)',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name could not be resolved',
  ECONNRESET: 'connection reset by the server',
  EPIPE: 'connection closed by the server',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_SOCKET: 'connection closed by the server',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  CERT_HAS_EXPIRED: 'the server certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the server certificate is self-signed',
};

/** Walks the `cause` chain (SDK error → fetch TypeError → socket error) for a known system code. */
function describeNetworkFailure(error: unknown): string {
  for (const link of causeChain(error)) {
    const code = codeOf(link);
    if (code && networkCodes[code]) return networkCodes[code];
  }
  const innermost = causeChain(error).pop();
  return innermost instanceof Error ? innermost.message : String(innermost);
}

function isNetworkError(error: unknown): boolean {
  return causeChain(error).some((link) => {
    const code = codeOf(link);
    return (code !== undefined && code in networkCodes) || (link instanceof TypeError && link.message === 'terminated');
  });
}

function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current !== undefined && current !== null && chain.length < 8) {
    chain.push(current);
    current = current instanceof Error ? current.cause : undefined;
  }
  return chain;
}

function codeOf(value: unknown): string | undefined {
  if (typeof value === 'object' && value !== null && 'code' in value && typeof value.code === 'string') return value.code;
  return undefined;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
