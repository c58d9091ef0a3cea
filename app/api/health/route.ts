import { getPool } from "../../../lib/server/db";
import { getHealth, type HealthDto } from "../../../lib/server/queries/get-health";

export const dynamic = "force-dynamic";

export async function GET(): Promise<Response> {
  let health: HealthDto;
  try {
    health = await getHealth(getPool());
  } catch (err) {
    // getPool throws when DATABASE_URL is missing or invalid: the database is unreachable.
    health = {
      status: "error",
      database: "down",
      error:
        err instanceof Error
          ? err.message.replace(/\s*\n\s*/g, " ").slice(0, 200)
          : "database unavailable",
    };
  }
  return Response.json(health, {
    status: health.status === "ok" ? 200 : 503,
    headers: { "Cache-Control": "no-store" },
  });
}
