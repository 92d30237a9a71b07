/**
 * Passwords travel apart from server URLs (stored targets never hold one); this puts them
 * together for the one moment a driver needs them.
 */

/** The URL with `password` set (percent-encoded); unchanged when there is none. */
export function withPassword(url: string, password: string | null): string {
  if (password === null || password === '') return url;
  const parsed = new URL(url);
  parsed.password = encodeURIComponent(password);
  return parsed.toString();
}
