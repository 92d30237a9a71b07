/**
 * Which dump a graph element came from. Neo4j Community has one user database, so
 * `dwb dqa import` tags every node and relationship it writes there with `_dump` (the dump's
 * file name without extension), and the loaders read one dump by it.
 */
export const dumpProperty = '_dump';
