import { screenRoute } from "../../../../lib/api/screen-route";
import { getPool } from "../../../../lib/server/db";
import { inboxSearchSchema, listInbox } from "../../../../lib/server/queries/list-inbox";

export const dynamic = "force-dynamic";

export const GET = screenRoute({
  scope: "tasks:read",
  search: inboxSearchSchema,
  read: (viewer, search) => listInbox(getPool(), viewer, search),
});
