// The sidebar's inbox counts, polled on every dashboard page: indexed counts only.
import { z } from "zod";
import { screenRoute } from "../../../../lib/api/screen-route";
import { countInbox } from "../../../../lib/server/queries/inbox-counts";

export const dynamic = "force-dynamic";

export const GET = screenRoute({
  scope: "tasks:read",
  search: z.object({}),
  read: (viewer, _search, { pool }) => countInbox(pool, viewer),
});
