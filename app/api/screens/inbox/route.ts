import { screenRoute } from "../../../../lib/api/screen-route";
import { inboxSearchSchema, listInbox } from "../../../../lib/server/queries/list-inbox";

export const dynamic = "force-dynamic";

export const GET = screenRoute({
  scope: "tasks:read",
  search: inboxSearchSchema,
  read: (viewer, search, { pool }) => listInbox(pool, viewer, search),
});
