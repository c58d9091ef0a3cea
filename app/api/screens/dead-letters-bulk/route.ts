import { z } from "zod";
import { screenRoute } from "../../../../lib/api/screen-route";
import { getBulkAction } from "../../../../lib/server/queries/get-bulk-action";

export const dynamic = "force-dynamic";

/** A bulk action's progress and per-task outcomes, as the dead-letter screen shows them. */
export const GET = screenRoute({
  scope: "tasks:read",
  search: z.object({ id: z.uuid({ message: "must be a bulk action id (a UUID)" }) }),
  read: (viewer, search, { db }) => getBulkAction(db, viewer, search.id),
});
