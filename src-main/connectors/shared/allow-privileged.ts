/**
 * The URL parameter that lets a privileged login connect anyway (PostgreSQL and MySQL/MariaDB
 * check the login's rights at connect and refuse one that can do more than read). It is the
 * workbench's own: each connector removes it before the URL reaches its driver.
 */
export const allowPrivilegedParameter = 'allow_privileged';

/** True when the URL carries `allow_privileged=1` (or `true`/`yes`/`on`). */
export function allowsPrivilegedLogin(url: string): boolean {
  const value = new URL(url).searchParams.get(allowPrivilegedParameter);
  return value !== null && ['1', 'true', 'yes', 'on'].includes(value.toLowerCase());
}
