/**
 * Where a link in a note or rationale may lead: the web and mail. Anything else (javascript:,
 * data:, file:, a custom protocol, a bare path) is no link: the notebook shows its text alone
 * and the desktop app never hands it to the operating system.
 */
export function isExternalLink(url: string): boolean {
  return /^(https?:\/\/|mailto:)/i.test(url);
}
