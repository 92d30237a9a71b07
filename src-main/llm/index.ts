/** The model-provider layer: what the decision engine imports. */
export type { ChatMessage, ConstrainedBy, GenerateOptions, OutputConstraint, ModelProvider, ModelRequest, ModelResponse, ModelUsage, ToolCall, ToolSpec } from './types';
export {
  parseProviderSettings,
  providerSettingsSchema,
  publicSettings,
  toolModes,
  type ProviderSettings,
  type ProviderSettingsInput,
  type PublicProviderSettings,
  type ToolMode,
} from './settings';
export { createOpenAiProvider } from './openai-provider';
export { findPreset, presetIds, providerPresets, settingsFromPreset, type PresetId, type ProviderPreset } from './presets';
export { testProviderConnection, type ConnectionReport } from './test-connection';
export {
  readTranscript,
  recordingProvider,
  transcriptFormat,
  transcriptVersion,
  writeTranscriptLine,
  type RecordingOptions,
  type Transcript,
  type TranscriptExchange,
  type TranscriptHeader,
  type TranscriptLine,
  type TranscriptSink,
} from './transcript';
export { createReplayProvider, type ReplayOptions } from './replay-provider';
