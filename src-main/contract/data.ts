import { z } from 'zod';

/** A value in a result grid. Big integers arrive as strings so no digit is lost in JSON. */
export const cellValueSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);
export type CellValue = z.infer<typeof cellValueSchema>;

export const dialectSchema = z.enum(['sql', 'cypher']);
export type Dialect = z.infer<typeof dialectSchema>;

/** Database engines the workbench knows how to open. */
export const engineSchema = z.enum(['sqlite', 'duckdb', 'postgres', 'mysql', 'neo4j', 'kuzu', 'trino']);
export type Engine = z.infer<typeof engineSchema>;

export const columnInfoSchema = z.object({
  name: z.string(),
  /** Declared type as the engine reports it, e.g. `VARCHAR(30)`; empty when untyped. */
  type: z.string(),
  nullable: z.boolean(),
  /** 1-based position in the primary key, 0 when not part of it. */
  primaryKey: z.number().int(),
  /** `table.column` this column references, when a foreign key says so. */
  references: z.string().optional(),
});
export type ColumnInfo = z.infer<typeof columnInfoSchema>;

export const tableInfoSchema = z.object({
  /** As a query on the connection writes it: bare in its default schema, qualified elsewhere. */
  name: z.string(),
  /**
   * Where the table lives when that is not the connection's default schema: `sales` (a
   * PostgreSQL or MySQL schema, a schema of the Trino catalog) or `lake.sales` (another Trino
   * catalog). The schema browser groups by it; `name` then starts with it and a dot.
   */
  namespace: z.string().optional(),
  kind: z.enum(['table', 'view']),
  columns: z.array(columnInfoSchema),
  /** Exact count when cheap to compute; null when the engine could not tell. */
  rowCount: z.number().int().nullable(),
});
export type TableInfo = z.infer<typeof tableInfoSchema>;

export const graphElementSchema = z.object({
  name: z.string(),
  properties: z.array(z.object({ name: z.string(), type: z.string() })),
  count: z.number().int().nullable(),
  /** For relationship types: the labels they connect, as `From->To` pairs. */
  endpoints: z.array(z.string()).optional(),
});

export const schemaInfoSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('relational'), tables: z.array(tableInfoSchema) }),
  z.object({
    kind: z.literal('graph'),
    labels: z.array(graphElementSchema),
    relationshipTypes: z.array(graphElementSchema),
  }),
]);
export type SchemaInfo = z.infer<typeof schemaInfoSchema>;

/**
 * Rows of a result the notebook shows and stores: a query run from a cell streams every row
 * it reads, but only this many are sent to the grid and saved with the cell (with the full
 * count), so a million-row result keeps the workspace small and the notebook quick to reopen.
 */
export const resultPreviewRows = 5000;

export const queryResultSchema = z.object({
  columns: z.array(z.object({ name: z.string(), type: z.string() })),
  rows: z.array(z.array(cellValueSchema)),
  /** Rows returned, at most the row cap; `rows` holds them all unless `preview` is set. */
  rowCount: z.number().int(),
  /** True when the query produced more rows than the cap and the rest were not read. */
  truncated: z.boolean(),
  elapsedMs: z.number(),
  /**
   * Set when `rows` holds only the first rows of a larger result (a bounded preview, as a
   * notebook stores it): how many, and how to see the rest (re-run or export).
   */
  preview: z.object({ rows: z.number().int(), note: z.string() }).optional(),
});
export type QueryResult = z.infer<typeof queryResultSchema>;
export type ResultColumn = QueryResult['columns'][number];
