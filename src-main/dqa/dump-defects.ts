/**
 * Known defects of the published DQA dumps, repaired at parse time so that every consumer
 * (loaders, importers, the planner's schema view) sees one clean schema.
 *
 * `has_has_merchant`: some Locating dumps spell the `has_merchant` column/property with a
 * doubled prefix, in the CREATE TABLE and in all or part of the rows (in the graph dumps
 * the two spellings are even mixed within one file). The values are unaffected, so the
 * repair is a pure rename and nothing is lost. A dump that uses both spellings for the same
 * table (or the same relationship) is ambiguous and is rejected by the parsers instead.
 */
const COLUMN_ALIASES: ReadonlyMap<string, string> = new Map([['has_has_merchant', 'has_merchant']]);

/** Lengths of the defective spellings: most names are ruled out without hashing them. */
const ALIAS_LENGTHS = new Set([...COLUMN_ALIASES.keys()].map((name) => name.length));

/** Returns the repaired spelling of a column or property name (unchanged when not defective). */
export function repairFieldName(name: string): string {
  if (!ALIAS_LENGTHS.has(name.length)) return name;
  return COLUMN_ALIASES.get(name.toLowerCase()) ?? name;
}
