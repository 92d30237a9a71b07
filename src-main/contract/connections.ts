import { z } from 'zod';
import { engineSchema, schemaInfoSchema } from './data';

/**
 * How to reach a database. The workbench stores this as given; secrets (passwords) never sit
 * here but in the secret store, keyed by connection id.
 */
export const connectionTargetSchema = z.discriminatedUnion('engine', [
  z.object({ engine: z.literal('sqlite'), path: z.string().min(1) }),
]);
export type ConnectionTarget = z.infer<typeof connectionTargetSchema>;

export const connectionSchema = z.object({
  id: z.string(),
  name: z.string().min(1),
  engine: engineSchema,
  target: connectionTargetSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Connection = z.infer<typeof connectionSchema>;

export const connectionSchemaResultSchema = z.object({ connectionId: z.string(), schema: schemaInfoSchema });
