import { readFileSync } from 'node:fs';
import { appRoot } from './app-root';

let cached: string | undefined;

export function appVersion(): string {
  cached ??= (JSON.parse(readFileSync(`${appRoot()}/package.json`, 'utf8')) as { version: string }).version;
  return cached;
}

/** This install's version for a result's record; null when package.json cannot be read (the result then says "not recorded"). */
export function recordedAppVersion(): string | null {
  try {
    return appVersion();
  } catch {
    return null;
  }
}
