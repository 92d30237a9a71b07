/**
 * The model-provider spec the decision engine calls. Nothing here knows about HTTP or a
 * particular server: the OpenAI-compatible provider, the replay provider and the recording
 * wrapper all implement `ModelProvider`, so a run can be re-executed without a model.
 */

/** One message of a conversation, in the engine's terms (not the wire format). */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** Tool calls the assistant made in this message (assistant messages only). */
  toolCalls?: ToolCall[];
  /** The call this message answers (tool messages only). */
  toolCallId?: string;
}

/** A call the model asked for. `arguments` is kept as the raw JSON text the model sent, unparsed. */
export interface ToolCall {
  id: string;
  name: string;
  /** Raw JSON text as the model sent it; the caller validates it. */
  arguments: string;
}

/** A tool offered to the model. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON schema of the arguments object. */
  parameters: Record<string, unknown>;
}

/**
 * A structured reply the caller insists on. `tool-call`: the reply must be exactly one call of
 * one of `request.tools`. `json`: the reply text must be one JSON value matching `schema`.
 * Providers honour it as far as the model or server can (a grammar in-process, `tool_choice` or
 * `response_format` over HTTP) and say in `ModelResponse.constrained` whether they did.
 */
export type OutputConstraint = { kind: 'tool-call'; required: true } | { kind: 'json'; name: string; schema: Record<string, unknown> };

/** How a reply was held to its structure: `grammar` (in-process decoding), `tool-choice`, `json-schema` (HTTP), or `none`. */
export type ConstrainedBy = 'grammar' | 'tool-choice' | 'json-schema' | 'none';

/** One call to the model. `temperature` and `maxTokens` override the provider settings. */
export interface ModelRequest {
  messages: ChatMessage[];
  tools?: ToolSpec[];
  temperature?: number;
  maxTokens?: number;
  /** Ask for a structured reply; absent = the provider's default (see each provider). */
  output?: OutputConstraint;
  /** Sequences at which the model stops writing (the plain-text protocol stops before `Observation:`). */
  stop?: string[];
}

/** Token counts as the server reported them. */
export interface ModelUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** The model's answer to one `ModelRequest`. */
export interface ModelResponse {
  content: string;
  toolCalls: ToolCall[];
  /** As the server said it (`stop`, `tool_calls`, `length`, …); `repetition`: a local model's reply cut for repeating one short unit over and over. */
  finishReason: string;
  /** Null when the server reported no usage. */
  usage: ModelUsage | null;
  /** Wall-clock time of the whole call, retries included. */
  latencyMs: number;
  /** The model name the server reported (the configured one when it reported none). */
  model: string;
  /** How the reply was held to its structure; absent when the provider predates the field (read as `none`). */
  constrained?: ConstrainedBy;
}

/** Per-call options. */
export interface GenerateOptions {
  /** Aborting it ends the call with a `cancelled` WorkbenchError. */
  signal?: AbortSignal;
  /** Called with each piece of answer text as it arrives (streaming providers only, in order). */
  onToken?: (text: string) => void;
}

/**
 * Something that answers model requests. `generate` rejects only with a `WorkbenchError`
 * (codes `timeout`, `cancelled`, `connection-failed`, `not-found`, `invalid-request`,
 * `unsupported`, `internal`).
 */
export interface ModelProvider {
  /** Human-readable, e.g. `llama3.1:8b at http://127.0.0.1:11434/v1`; never contains a key. */
  readonly description: string;
  generate(request: ModelRequest, options?: GenerateOptions): Promise<ModelResponse>;
}
