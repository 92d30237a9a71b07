import { z } from 'zod';
import { cellKindSchema } from './notebook';

/** What the trash holds: deleted notebooks, cells and attached documents (of notebooks still open), connections and a removed connection's deleted playbooks. */
export const trashListingSchema = z.object({
  notebooks: z.array(z.object({ id: z.string(), title: z.string(), cellCount: z.number().int(), deletedAt: z.string() })),
  cells: z.array(z.object({ id: z.string(), notebookId: z.string(), notebookTitle: z.string(), kind: cellKindSchema, excerpt: z.string(), deletedAt: z.string() })),
  /** `passwordForgotten`: it had a password, which removing it forgot (a restore asks for it again). */
  connections: z.array(z.object({ id: z.string(), name: z.string(), engine: z.string(), deletedAt: z.string(), passwordForgotten: z.boolean() })),
  documents: z.array(z.object({ id: z.string(), notebookId: z.string(), notebookTitle: z.string(), name: z.string(), chars: z.number().int(), deletedAt: z.string() })),
  /** A removed connection's playbooks, deleted whole (`playbooks/delete-task`); `id` is what `playbooks/restore` takes; the name while the connection is in the trash. */
  playbooks: z.array(z.object({ id: z.string(), scenario: z.string(), db: z.enum(['rdb', 'gdb']), connectionName: z.string().nullable(), versions: z.number().int(), deletedAt: z.string() })),
});
export type TrashListing = z.infer<typeof trashListingSchema>;

export const trashKindSchema = z.enum(['notebook', 'cell', 'connection', 'document', 'playbooks']);
export type TrashKind = z.infer<typeof trashKindSchema>;

export const trashRequests = {
  'trash/list': { params: z.object({}), result: trashListingSchema },
  /** Puts one item back where it was (a connection comes back without its password). */
  'trash/restore': { params: z.object({ kind: trashKindSchema, id: z.string() }), result: z.object({ ok: z.literal(true) }) },
  /**
   * Deletes everything in the trash for good: a notebook with its cells and its runs' logs,
   * and deleted playbooks (their folders under playbooks/.deleted). A notebook with a run
   * still going stays until the run ends.
   */
  'trash/empty': {
    params: z.object({}),
    result: z.object({ notebooks: z.number().int(), cells: z.number().int(), connections: z.number().int(), documents: z.number().int(), playbooks: z.number().int(), kept: z.number().int() }),
  },
} as const;
