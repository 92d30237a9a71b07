/**
 * A refused request's message as the analyst should read it. The main process checks every
 * request against the contract and answers "Invalid runs/start request: dellma.perAction: the
 * samples per option must be at least 1"; the DeLLMa sizes' messages already name their field
 * in words, so the method name and the internal field path (`settings.perAction`,
 * `dellma.batch`) are dropped, and a reason given twice is shown once. Any other message is
 * returned as it is.
 */
export function dellmaSizeProblem(message: string): string {
  const refused = /^Invalid [\w/]+ request: ([\s\S]*)$/.exec(message);
  if (!refused) return message;
  const reasons = (refused[1] ?? '').split('; ').map((issue) => issue.replace(/^(?:settings|dellma)\.\w+: /, ''));
  return [...new Set(reasons)].join('; ');
}
