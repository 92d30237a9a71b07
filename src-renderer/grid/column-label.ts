/**
 * A column's name as a heading, picker option or axis title: a blank name (`SELECT 1 AS ""`,
 * or a space) would be an empty header, an empty option and a "Sort by " tooltip, so it is
 * named by its position instead.
 */
export function columnLabel(name: string, index: number): string {
  return name.trim() === '' ? `column ${index + 1} (no name)` : name;
}
