/**
 * An OpenAI-compatible server that plays scripted conversations, for tests of anything that
 * talks to a model. Start it with a list of turns; point a client at `baseUrl`; inspect
 * `requests` to see exactly what the model was sent; call `verify()` at the end.
 */
export { startScriptedOpenAiServer, type ScriptedOpenAiServer } from './server';
export {
  messageText,
  toolResultsOf,
  type ReceivedChatRequest,
  type ReceivedRequest,
  type ScriptedFailure,
  type ScriptedRawBody,
  type ScriptedServerOptions,
  type ScriptedToolCall,
  type ScriptedTurn,
  type ScriptedUsage,
  type ScriptStep,
  type WireChatRequest,
  type WireMessage,
} from './script';
