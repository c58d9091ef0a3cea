// Public, for load balancers and orchestrators. `?probe=live` (liveness) answers 200 whenever the
// process serves requests and never touches the database, so a database outage does not get
// every web process restarted. The default, `?probe=ready` (readiness), answers 200 only when
// the database is up and fully migrated, and 503 otherwise. With DATABASE_READ_URL it also says
// whether the replica answers (`replica`), without the replica deciding readiness.
import { z } from "zod";
import { problem } from "../../../lib/api/problems";
import { describeIssues } from "../../../lib/domain/zod-issues";
import { getPool, getReadPool, readReplicaConfigured } from "../../../lib/server/db";
import { getReadiness, getReplicaHealth, LIVENESS } from "../../../lib/server/queries/get-health";

export const dynamic = "force-dynamic";

const querySchema = z.object({
  probe: z.enum(["live", "ready"], { message: 'must be "live" or "ready"' }).default("ready"),
});

const NO_STORE = { "Cache-Control": "no-store" };

export async function GET(request: Request): Promise<Response> {
  // Other parameters (cache busters some balancers add) are ignored.
  const query = querySchema.safeParse(
    Object.fromEntries(new URL(request.url).searchParams.entries()),
  );
  if (!query.success) return problem("invalid-request", describeIssues(query.error));
  if (query.data.probe === "live") return Response.json(LIVENESS, { headers: NO_STORE });
  const [health, replica] = await Promise.all([
    getReadiness(getPool),
    readReplicaConfigured() ? getReplicaHealth(getReadPool()) : undefined,
  ]);
  return Response.json(replica ? { ...health, replica } : health, {
    status: health.status === "ok" ? 200 : 503,
    headers: NO_STORE,
  });
}
