import { z } from 'zod';
import { cellKindSchema } from './notebook';

/** What the trash holds: deleted notebooks, cells and attached documents (of notebooks still open) and connections. */
export const trashListingSchema = z.object({
  notebooks: z.array(z.object({ id: z.string(), title: z.string(), cellCount: z.number().int(), deletedAt: z.string() })),
  cells: z.array(z.object({ id: z.string(), notebookId: z.string(), notebookTitle: z.string(), kind: cellKindSchema, excerpt: z.string(), deletedAt: z.string() })),
  connections: z.array(z.object({ id: z.string(), name: z.string(), engine: z.string(), deletedAt: z.string() })),
  documents: z.array(z.object({ id: z.string(), notebookId: z.string(), notebookTitle: z.string(), name: z.string(), chars: z.number().int(), deletedAt: z.string() })),
});
export type TrashListing = z.infer<typeof trashListingSchema>;

export const trashKindSchema = z.enum(['notebook', 'cell', 'connection', 'document']);
export type TrashKind = z.infer<typeof trashKindSchema>;

export const trashRequests = {
  'trash/list': { params: z.object({}), result: trashListingSchema },
  /** Puts one item back where it was (a connection comes back without its password). */
  'trash/restore': { params: z.object({ kind: trashKindSchema, id: z.string() }), result: z.object({ ok: z.literal(true) }) },
  /**
   * Deletes everything in the trash for good: a notebook with its cells and its runs' logs.
   * A notebook with a run still going stays until the run ends.
   */
  'trash/empty': {
    params: z.object({}),
    result: z.object({ notebooks: z.number().int(), cells: z.number().int(), connections: z.number().int(), documents: z.number().int(), kept: z.number().int() }),
  },
} as const;
