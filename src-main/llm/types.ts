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

/** One call to the model. `temperature` and `maxTokens` override the provider settings. */
export interface ModelRequest {
  messages: ChatMessage[];
  tools?: ToolSpec[];
  temperature?: number;
  maxTokens?: number;
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
  /** As the server said it (`stop`, `tool_calls`, `length`, …). */
  finishReason: string;
  /** Null when the server reported no usage. */
  usage: ModelUsage | null;
  /** Wall-clock time of the whole call, retries included. */
  latencyMs: number;
  /** The model name the server reported (the configured one when it reported none). */
  model: string;
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
