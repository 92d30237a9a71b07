import { describe, expect, it } from 'vitest';
import { providerPresets, settingsFromPreset } from '../../../src-main/llm/presets';
import { formatSeconds, publicSettings } from '../../../src-main/llm/settings';

describe('presets and settings', () => {
  it('has the known local servers and OpenAI at their usual addresses', () => {
    expect(Object.fromEntries(providerPresets.map((preset) => [preset.id, preset.defaults.baseUrl]))).toEqual({
      ollama: 'http://127.0.0.1:11434/v1',
      'lm-studio': 'http://127.0.0.1:1234/v1',
      'llama-cpp': 'http://127.0.0.1:8080/v1',
      vllm: 'http://127.0.0.1:8000/v1',
      openai: 'https://api.openai.com/v1',
    });
    expect(providerPresets.filter((preset) => preset.requiresApiKey).map((preset) => preset.id)).toEqual(['openai']);
  });

  it('turns a preset and a model into complete settings', () => {
    expect(settingsFromPreset('ollama', { model: 'qwen2.5:7b-instruct' })).toEqual({
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'qwen2.5:7b-instruct',
      temperature: 0.2,
      maxTokens: 2048,
      requestTimeoutMs: 300_000,
      maxRetries: 2,
      stream: true,
      toolMode: 'auto',
    });
    expect(settingsFromPreset('vllm', { model: 'm', toolMode: 'text', requestTimeoutMs: 5_000 })).toMatchObject({ toolMode: 'text', requestTimeoutMs: 5_000 });
    expect(() => settingsFromPreset('openai', { model: '' })).toThrow('Invalid model settings: model: model must name the model to use');
  });

  it('never shows the key or URL credentials, and refuses credentials in the URL', () => {
    expect(() => settingsFromPreset('openai', { model: 'm', apiKey: 'sk-1', baseUrl: 'https://user:pw@proxy.example/v1' })).toThrow(
      'Invalid model settings: baseUrl: baseUrl must not contain a user name or password',
    );
    // Settings that skipped validation still show neither.
    const unchecked = { ...settingsFromPreset('openai', { model: 'm', apiKey: 'sk-1' }), baseUrl: 'https://user:pw@proxy.example/v1' };
    const shown = publicSettings(unchecked);
    expect(shown).not.toHaveProperty('apiKey');
    expect(shown.baseUrl).toBe('https://proxy.example/v1');
  });

  it('formats timeouts in seconds', () => {
    expect([300, 400, 1_500, 10_000, 120_000, 12_345].map(formatSeconds)).toEqual(['0.3 s', '0.4 s', '1.5 s', '10 s', '120 s', '12.3 s']);
  });
});
