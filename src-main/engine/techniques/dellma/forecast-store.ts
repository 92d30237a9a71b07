import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { BeliefFactor } from './belief';

/** A model forecast kept for later runs, with the run and time that made it. */
export interface StoredForecast {
  runId: string | null;
  savedAt: string;
  factors: BeliefFactor[];
}

/**
 * The model's forecasts across runs, keyed by the forecast call's hash (model and prompt, so
 * options, factors and context all count). Only the model's own answers are stored: an
 * analyst's edit is a run's choice, never the model's forecast.
 */
export interface ForecastStore {
  get(key: string): StoredForecast | null;
  put(key: string, factors: BeliefFactor[]): void;
}

/** A small JSON file store; `runId` is the run whose forecasts `put` records. An unreadable file counts as empty. */
export function jsonForecastStore(path: string, runId: string | null, now: () => Date = () => new Date()): ForecastStore {
  const read = (): Record<string, StoredForecast> => {
    if (!existsSync(path)) return {};
    try {
      const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
      return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, StoredForecast>) : {};
    } catch {
      return {};
    }
  };
  return {
    get: (key) => {
      const entry = read()[key];
      return entry && Array.isArray(entry.factors) ? entry : null;
    },
    put: (key, factors) => {
      const all = read();
      all[key] = { runId, savedAt: now().toISOString(), factors };
      mkdirSync(dirname(path), { recursive: true });
      // Written aside and renamed, so a crash never leaves a half-written store.
      writeFileSync(`${path}.tmp`, JSON.stringify(all));
      renameSync(`${path}.tmp`, path);
    },
  };
}
