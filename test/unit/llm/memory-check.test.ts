import { freemem } from 'node:os';
import { describe, expect, it } from 'vitest';
import { assertEnoughMemory, estimateLoadBytes } from '../../../src-main/llm/local/model-file';

const mib = 1024 * 1024;

describe('local model memory check', () => {
  it('estimates weights + key/value cache for the context + buffers', () => {
    // 30 layers, 192-wide keys/values (SmolLM2-135M): 2 × 2 bytes × 30 × 192 = 23,040 bytes a token.
    const small = estimateLoadBytes({ sizeBytes: 100 * mib, layers: 30, keyValueWidth: 192 }, 2048);
    expect(small).toBe(100 * mib + 23_040 * 2048 + 256 * mib);
    expect(estimateLoadBytes({ sizeBytes: 100 * mib, layers: 30, keyValueWidth: 192 }, 8192)).toBeGreaterThan(small);
    // Unknown shape: a generous per-token allowance, never zero.
    expect(estimateLoadBytes({ sizeBytes: 0, layers: null, keyValueWidth: null }, 1000)).toBe(512 * 1024 * 1000 + 256 * mib);
  });

  it('refuses a requirement larger than the free memory, saying how much is needed and free', () => {
    expect(() => assertEnoughMemory(64 * 1024 * mib, 'big.gguf', 2 * 1024 * mib)).toThrow(/Not enough free memory to load big\.gguf: it needs about 64\.0 GiB .* and 2\.0 GiB is free/);
    expect(() => assertEnoughMemory(1024 * mib, 'small.gguf', 2 * 1024 * mib)).not.toThrow();
    // Against the machine's real free memory, a petabyte is refused.
    expect(() => assertEnoughMemory(2 ** 50, 'huge.gguf')).toThrow(/Not enough free memory/);
    expect(freemem()).toBeGreaterThan(0);
  });
});
