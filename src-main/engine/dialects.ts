import type { Engine } from '../contract/data';

/** How to write queries for each engine: the notes the model needs to avoid common errors. */
export const dialectNotes: Record<Engine, { label: string; notes: string }> = {
  sqlite: {
    label: 'SQLite SQL',
    notes:
      'SQLite: strings in single quotes, identifiers in double quotes; booleans are 0/1; integer division truncates (multiply by 1.0 for real division); no FULL OUTER JOIN before 3.39; use LIMIT, not TOP.',
  },
  duckdb: {
    label: 'DuckDB SQL',
    notes: 'DuckDB: PostgreSQL-like SQL; strings in single quotes; `/` is real division; use LIMIT; CSV and Parquet files appear as tables named after the file.',
  },
  postgres: {
    label: 'PostgreSQL SQL',
    notes: 'PostgreSQL: strings in single quotes, identifiers in double quotes and case-sensitive when quoted; integer division truncates (cast to numeric); booleans are true/false.',
  },
  mysql: {
    label: 'MySQL/MariaDB SQL',
    notes: 'MySQL/MariaDB: strings in single quotes, identifiers in backticks; `/` is real division, DIV is integer division; booleans are 0/1; use LIMIT.',
  },
  neo4j: {
    label: 'Neo4j Cypher',
    notes:
      'Neo4j Cypher: MATCH (a:Label)-[r:TYPE]->(b) RETURN …; property access a.prop; aggregate with count(), sum(), collect(); no write clauses (CREATE, MERGE, SET, DELETE) — the session is read-only.',
  },
  trino: {
    label: 'Trino SQL',
    notes:
      'Trino: ANSI SQL; strings in single quotes, identifiers in double quotes; tables in other schemas or catalogs as schema.table or catalog.schema.table; integer division truncates (CAST AS DOUBLE); use LIMIT; one statement, reads only.',
  },
  kuzu: {
    label: 'LadybugDB Cypher',
    notes:
      'LadybugDB (formerly Kùzu) Cypher: like Neo4j Cypher but strictly typed; every relationship pattern needs a relationship table name, e.g. MATCH (a:Trade_node)-[r:source]->(b:Trade_node); no APOC; read-only database.',
  },
};
