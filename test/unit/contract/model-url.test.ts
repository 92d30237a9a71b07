import { describe, expect, it } from 'vitest';
import { credentialsInUrlMessage, providerSettingsSchema, urlHasCredentials } from '../../../src-main/contract/model';
import { parseProviderSettings, redactUrl } from '../../../src-main/llm/settings';

const key = 'sk-Qy7-in-the-url';

/** Base URLs with a credential somewhere: user info, any query string, any fragment. */
const withCredentials = [
  `http://analyst:${key}@127.0.0.1:9/v1`,
  `https://${key}@api.example.com/v1`,
  `https://api.example.com/v1?api_key=${key}`,
  `https://generativelanguage.example.com/v1beta/openai?key=${key}`,
  `https://api.example.com/v1?api-version=2024-06-01&api-key=${key}`,
  `https://api.example.com/v1#${key}`,
  `https://api.example.com/v1/#access_token=${key}`,
  'https://api.example.com/v1?',
  'https://api.example.com/v1#',
];

describe('base URLs with credentials (issue 26, item 3)', () => {
  it('finds a credential in the user info, any query string and any fragment', () => {
    for (const url of withCredentials) expect(urlHasCredentials(url), url).toBe(true);
    for (const url of ['http://127.0.0.1:11434/v1', 'https://api.openai.com/v1/', 'http://[::1]:8080/v1']) expect(urlHasCredentials(url), url).toBe(false);
  });

  it('refuses each with the one message, which never quotes the URL', () => {
    for (const baseUrl of withCredentials) {
      const parsed = providerSettingsSchema.safeParse({ baseUrl, model: 'm' });
      expect(parsed.success, baseUrl).toBe(false);
      expect(parsed.error?.issues.map((issue) => issue.message), baseUrl).toEqual([credentialsInUrlMessage]);
      expect(() => parseProviderSettings({ baseUrl, model: 'm' })).toThrow(`Invalid model settings: baseUrl: ${credentialsInUrlMessage}`);
    }
    expect(credentialsInUrlMessage).toMatch(/^baseUrl must not contain a user name or password \(user:secret@\), a query string \(\?api_key=…\) or a fragment \(#…\)/);
    expect(credentialsInUrlMessage).not.toContain(key);
  });

  it('shows URLs without user info, query or fragment', () => {
    expect(redactUrl(`https://me:${key}@api.example.com/v1/?api_key=${key}#${key}`)).toBe('https://api.example.com/v1');
    expect(redactUrl('http://127.0.0.1:11434/v1')).toBe('http://127.0.0.1:11434/v1');
  });
});
