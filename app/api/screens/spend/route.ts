import { screenRoute } from "../../../../lib/api/screen-route";
import { getSpend, spendSearchSchema } from "../../../../lib/server/queries/get-spend";

export const dynamic = "force-dynamic";

export const GET = screenRoute({
  scope: "metrics:read",
  search: spendSearchSchema,
  read: (viewer, search, { pool }) => getSpend(pool, viewer, search),
});
