import { screenRoute } from "../../../../lib/api/screen-route";
import { env } from "../../../../lib/env";
import { getPool } from "../../../../lib/server/db";
import { getOverview, overviewSearchSchema } from "../../../../lib/server/queries/get-overview";

export const dynamic = "force-dynamic";

export const GET = screenRoute({
  scope: "tasks:read",
  search: overviewSearchSchema,
  read: (viewer, search) =>
    getOverview(getPool(), viewer, {
      leaseMs: env().AGENT_LEDGER_LEASE_MS,
      window: search.window,
    }),
});
