import { describe, expect, it } from 'vitest';
import { isExternalLink } from '../../../src-main/contract/links';

describe('links a note may hold', () => {
  it('lead to the web or to mail, and nowhere else', () => {
    for (const url of ['https://example.org/guide', 'HTTP://example.org', 'mailto:analyst@example.org']) expect(isExternalLink(url), url).toBe(true);
    for (const url of ['javascript:alert(1)', ' javascript:alert(1)', 'data:text/html,x', 'file:///etc/passwd', 'vbscript:x', 'ms-settings:', 'https:example.org', '/relative', '', 'http//x']) {
      expect(isExternalLink(url), url).toBe(false);
    }
  });
});
