// Which bulk action a task's ledger entry was part of: the per-task commands a bulk runs record
// its `bulkId` in their entries' data; the task's timeline and /why name the bulk and who froze
// and confirmed it (components/dead-letters/href.ts links to its page).
import { inArray } from "drizzle-orm";
import { z } from "zod";
import { bulkActions } from "../../../db/schema";
import type { DbReader } from "./db-reader";

export const bulkRefSchema = z.object({
  id: z.uuid(),
  requestedBy: z.string(),
  confirmedBy: z.string().nullable(),
});
export type BulkRefDto = z.output<typeof bulkRefSchema>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The bulk id an entry's stored data names, if any (read before payloads are hidden). */
export function bulkIdOf(data: unknown): string | null {
  if (typeof data !== "object" || data === null || Array.isArray(data)) return null;
  const id = (data as { bulkId?: unknown }).bulkId;
  return typeof id === "string" && UUID.test(id) ? id : null;
}

/** The bulk actions these entries name, by id: one read for a whole page of entries. */
export async function loadBulkRefs(
  db: DbReader,
  datas: readonly unknown[],
): Promise<Map<string, BulkRefDto>> {
  const ids = [...new Set(datas.map(bulkIdOf).filter((id): id is string => id !== null))];
  const found = new Map<string, BulkRefDto>();
  if (ids.length === 0) return found;
  const rows = await db
    .select({
      id: bulkActions.id,
      requestedBy: bulkActions.requestedBy,
      confirmedBy: bulkActions.confirmedBy,
    })
    .from(bulkActions)
    .where(inArray(bulkActions.id, ids));
  for (const r of rows) found.set(r.id, r);
  return found;
}
