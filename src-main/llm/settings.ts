import { WorkbenchError } from '../contract/errors';

export { providerSettingsSchema, toolModes, type ProviderSettings, type ProviderSettingsInput, type PublicProviderSettings, type ToolMode } from '../contract/model';
import { providerSettingsSchema, type ProviderSettings, type PublicProviderSettings } from '../contract/model';

/** Validates settings, with an `invalid-request` error naming the first bad field. */
export function parseProviderSettings(input: unknown): ProviderSettings {
  const parsed = providerSettingsSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  throw new WorkbenchError('invalid-request', `Invalid model settings: ${where}${issue?.message ?? 'unknown problem'}`);
}

/** Settings without the API key, and without credentials written into the URL. */
export function publicSettings(settings: ProviderSettings): PublicProviderSettings {
  const { apiKey: _apiKey, ...rest } = settings;
  return { ...rest, baseUrl: redactUrl(settings.baseUrl) };
}

/** A URL safe to show: `user:password@`, the query and the fragment removed, no trailing slash. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    parsed.search = '';
    parsed.hash = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}

/** `300` → `0.3 s`, `120000` → `120 s`: timeouts are shown in seconds, as the analyst sets them. */
export function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : Number(seconds.toFixed(seconds < 10 ? 2 : 1))} s`;
}
