import { screenRoute } from "../../../../lib/api/screen-route";
import { env } from "../../../../lib/env";
import { getOverview, overviewSearchSchema } from "../../../../lib/server/queries/get-overview";

export const dynamic = "force-dynamic";

export const GET = screenRoute({
  scope: "tasks:read",
  search: overviewSearchSchema,
  read: (viewer, search, { pool }) =>
    getOverview(pool, viewer, {
      leaseMs: env().AGENT_LEDGER_LEASE_MS,
      window: search.window,
    }),
});
