import { readFileSync } from 'node:fs';
import { appRoot } from './app-root';

let cached: string | undefined;

export function appVersion(): string {
  cached ??= (JSON.parse(readFileSync(`${appRoot()}/package.json`, 'utf8')) as { version: string }).version;
  return cached;
}
