/**
 * Experiment cells keep their specification as JSON in the cell's source; a half-filled one is
 * kept as typed, so reading it never fails: anything but a JSON object reads as empty.
 */
export function parseJsonObject(source: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(source);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
