import { z } from 'zod';
import { engineSchema, schemaInfoSchema } from './data';
import { errorCodes } from './errors';
import { mysqlProtocols, neo4jProtocols, postgresProtocols, trinoProtocols } from './connection-protocols';

/** True when `text` parses as a URL with one of `protocols` (each with its colon, e.g. `mysql:`). */
function hasProtocol(text: string, protocols: readonly string[]): boolean {
  try {
    return protocols.includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

/** True when the URL carries no password (it would be stored and shown in plain text). */
function hasNoPassword(text: string): boolean {
  try {
    return new URL(text).password === '';
  } catch {
    return true; // the protocol check reports unparsable URLs
  }
}

/**
 * A server URL of one kind. A password is refused here, at the border, so no stored target can
 * ever hold one: passwords go with the request and into the secret store.
 */
function serverUrl(protocols: readonly string[], example: string) {
  return z
    .string()
    .trim()
    .refine((text) => hasProtocol(text, protocols), { message: `expected a URL such as ${example}` })
    .refine(hasNoPassword, { message: 'the URL holds a password: give it in the password field, which keeps it in the secret store' });
}

export { mysqlProtocols, neo4jProtocols, postgresProtocols, trinoProtocols };

/** What a DuckDB connection opens: a DuckDB database file, or a CSV / Parquet file as one table. */
export const duckdbFormats = ['duckdb', 'csv', 'parquet'] as const;
export type DuckdbFormat = (typeof duckdbFormats)[number];

/**
 * How to reach a database. The workbench stores this as given; secrets (passwords) never sit
 * here but in the secret store, keyed by connection id. File paths are absolute once saved.
 */
export const connectionTargetSchema = z.discriminatedUnion('engine', [
  z.object({ engine: z.literal('sqlite'), path: z.string().trim().min(1) }),
  z.object({ engine: z.literal('duckdb'), format: z.enum(duckdbFormats).default('duckdb'), path: z.string().trim().min(1) }),
  z.object({ engine: z.literal('kuzu'), path: z.string().trim().min(1) }),
  /** `postgres://user@host:port/database`, libpq URL parameters allowed. */
  z.object({ engine: z.literal('postgres'), url: serverUrl(postgresProtocols, 'postgres://user@host:5432/database') }),
  /** `mysql://user@host:port/database` (or mariadb://); the database part is optional. */
  z.object({ engine: z.literal('mysql'), url: serverUrl(mysqlProtocols, 'mysql://user@host:3306/database') }),
  /** `neo4j://host:port` or `bolt://host:port`; the login name apart; the server's default database when omitted. */
  z.object({
    engine: z.literal('neo4j'),
    url: serverUrl(neo4jProtocols, 'neo4j://host:7687').refine((text) => !/\/\/[^/]*@/.test(text), {
      message: 'give the user name in its own field, not in the URL',
    }),
    username: z.string().trim().min(1).optional(),
    database: z.string().trim().min(1).optional(),
  }),
  /** `trino://user@host:port/catalog[/schema]` (`?ssl=true` for HTTPS): Trino runs every query as the named user. */
  z.object({
    engine: z.literal('trino'),
    url: serverUrl(trinoProtocols, 'trino://analyst@host:8080/catalog/schema').refine((text) => /^trino:\/\/[^/@]+@[^/]+\/[^/?]+/.test(text.trim()), {
      message: 'expected trino://USER@HOST[:PORT]/CATALOG[/SCHEMA]: Trino needs a user and a catalog',
    }),
  }),
]);
export type ConnectionTarget = z.infer<typeof connectionTargetSchema>;
/** A target as a client may write it (DuckDB's format may be left out). */
export type ConnectionTargetInput = z.input<typeof connectionTargetSchema>;

export const connectionSchema = z.object({
  id: z.string(),
  name: z.string().min(1),
  engine: engineSchema,
  target: connectionTargetSchema,
  /** A password is kept for this connection in the secret store (never sent back). */
  hasPassword: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Connection = z.infer<typeof connectionSchema>;

export const connectionSchemaResultSchema = z.object({ connectionId: z.string(), schema: schemaInfoSchema });

/** What a connection test found: counts from the schema, or the exact error. */
export const connectionTestReportSchema = z.object({
  ok: z.boolean(),
  elapsedMs: z.number(),
  /** One line: what was found, or the engine's own error message. */
  message: z.string(),
  /** The error's code when the test failed. */
  code: z.enum(errorCodes).optional(),
  /** Loud warnings about a connection that succeeded (e.g. a privileged login allowed by opt-in). */
  warnings: z.array(z.string()).optional(),
  counts: z
    .object({
      tables: z.number().int().optional(),
      rows: z.number().int().optional(),
      labels: z.number().int().optional(),
      nodes: z.number().int().optional(),
      relationshipTypes: z.number().int().optional(),
      relationships: z.number().int().optional(),
    })
    .optional(),
});
export type ConnectionTestReport = z.infer<typeof connectionTestReportSchema>;

const name = z.string().trim().min(1).max(200);
/** A password as typed: absent keeps the stored one, empty removes it. */
const password = z.string().max(4096).optional();
const ok = z.object({ ok: z.literal(true) });

/** The `connections/*` requests of the contract (spread into `api`). */
export const connectionRequests = {
  'connections/list': { params: z.object({}), result: z.array(connectionSchema) },
  'connections/add': {
    params: z.object({ name, target: connectionTargetSchema, password }),
    result: connectionSchema,
  },
  'connections/rename': { params: z.object({ id: z.string(), name }), result: connectionSchema },
  /** Edits a connection; the open connector is closed so the next use opens the new target. */
  'connections/update': {
    params: z.object({ id: z.string(), name: name.optional(), target: connectionTargetSchema.optional(), password }),
    result: connectionSchema,
  },
  'connections/remove': { params: z.object({ id: z.string() }), result: ok },
  /** Opens the connection if needed and reads its schema (tables, columns, keys, counts). */
  'connections/schema': { params: z.object({ id: z.string() }), result: connectionSchemaResultSchema },
  /**
   * Opens a target (saved or not), reads its schema and closes it again; never throws for a
   * connection that fails. With `id` and no `password`, the stored password of `id` is used.
   */
  'connections/test': {
    params: z.object({ target: connectionTargetSchema, password, id: z.string().optional() }),
    result: connectionTestReportSchema,
  },
  /** Whether passwords survive a restart: false in browser mode, where they stay in memory only. */
  'connections/secrets-info': { params: z.object({}), result: z.object({ persistent: z.boolean() }) },
} as const;
