// Readiness for /api/health: the database answers and holds every migration this build needs.
// Load balancers poll this, so it must answer quickly either way: a database that does not
// answer within the timeout counts as down. Liveness needs no query (LIVENESS).
import type pg from "pg";
import { z } from "zod";
// Bundled at build time: a deployed server reports against the migrations it was built with,
// and no file path has to survive Next's output tracing.
import journalJson from "../../../db/migrations/meta/_journal.json";

export const HEALTH_TIMEOUT_MS = 2_000;

export type HealthDto =
  | {
      /** "migrating": the database answers but lacks migrations this build needs; not ready. */
      status: "ok" | "migrating";
      database: "up";
      migrations: {
        applied: number;
        expected: number;
        /** Tag of the newest applied migration; null if none, or if this build does not know it. */
        latest: string | null;
      };
    }
  | { status: "error"; database: "down"; error: string };

const journalSchema = z.object({
  entries: z.array(z.object({ idx: z.number(), when: z.number(), tag: z.string() })),
});

const journal = journalSchema.parse(journalJson);

/** The process is up and serving: what `/api/health?probe=live` answers, never touching the database. */
export const LIVENESS = { status: "ok", probe: "live" } as const;

export class HealthTimeoutError extends Error {
  override name = "HealthTimeoutError";
}

type MigrationRow = { applied: number; latest_when: string | null };

export async function getHealth(
  pool: Pick<pg.Pool, "query">,
  timeoutMs = HEALTH_TIMEOUT_MS,
): Promise<HealthDto> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new HealthTimeoutError(`database did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  // query_timeout bounds a query on a connection that hangs (pg then drops that connection);
  // the race also bounds waiting for a connection, which the pool allows far longer.
  const query: pg.QueryConfig & { query_timeout: number } = {
    text: "select count(*)::int as applied, max(created_at)::text as latest_when from drizzle.__drizzle_migrations",
    query_timeout: timeoutMs,
  };
  const read = pool.query<MigrationRow>(query).catch((err: unknown) => {
    // A database nobody has migrated yet is up; it has applied nothing.
    if (isPgCode(err, UNDEFINED_TABLE) || isPgCode(err, UNDEFINED_SCHEMA)) return { rows: [] };
    throw err;
  });
  try {
    const { rows } = await Promise.race([read, timeout]);
    const row = rows[0];
    const latestWhen = row?.latest_when == null ? null : Number(row.latest_when);
    const applied = row?.applied ?? 0;
    return {
      status: applied >= journal.entries.length ? "ok" : "migrating",
      database: "up",
      migrations: {
        applied,
        expected: journal.entries.length,
        latest: journal.entries.find((e) => e.when === latestWhen)?.tag ?? null,
      },
    };
  } catch (err) {
    return { status: "error", database: "down", error: shortMessage(err) };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Readiness when even getting a pool can fail (DATABASE_URL missing or invalid): that is a
 * database nobody can reach, reported like one, without the setting's value.
 */
export async function getReadiness(
  pool: () => Pick<pg.Pool, "query">,
  timeoutMs = HEALTH_TIMEOUT_MS,
): Promise<HealthDto> {
  let resolved: Pick<pg.Pool, "query">;
  try {
    resolved = pool();
  } catch (err) {
    return { status: "error", database: "down", error: shortMessage(err) };
  }
  return getHealth(resolved, timeoutMs);
}

/**
 * The read replica (DATABASE_READ_URL), beside readiness but never deciding it: the primary
 * alone serves writes, sign-in and every action, so a replica that is down degrades the screens
 * that read from it (they answer 503) without taking the web process out of rotation.
 */
export type ReplicaHealthDto =
  | {
      database: "up";
      /** pg_is_in_recovery(): false when the URL points at a primary (or a read-only role on one). */
      standby: boolean;
      /**
       * Seconds since the last transaction the standby replayed was committed on the primary
       * (it grows while the primary is idle too); null when it is not a standby.
       */
      replayLagSeconds: number | null;
    }
  | { database: "down"; error: string };

type ReplicaRow = { standby: boolean; lag: number | null };

export async function getReplicaHealth(
  pool: Pick<pg.Pool, "query">,
  timeoutMs = HEALTH_TIMEOUT_MS,
): Promise<ReplicaHealthDto> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new HealthTimeoutError(`replica did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  const query: pg.QueryConfig & { query_timeout: number } = {
    text: `select pg_is_in_recovery() as standby,
             extract(epoch from now() - pg_last_xact_replay_timestamp())::float8 as lag`,
    query_timeout: timeoutMs,
  };
  try {
    const { rows } = await Promise.race([pool.query<ReplicaRow>(query), timeout]);
    const row = rows[0];
    return {
      database: "up",
      standby: row?.standby ?? false,
      replayLagSeconds: row?.standby && row.lag !== null ? Number(row.lag.toFixed(3)) : null,
    };
  } catch (err) {
    return { database: "down", error: shortMessage(err) };
  } finally {
    clearTimeout(timer);
  }
}

const UNDEFINED_TABLE = "42P01";
const UNDEFINED_SCHEMA = "3F000";

function isPgCode(err: unknown, code: string): boolean {
  return typeof err === "object" && err !== null && "code" in err && err.code === code;
}

function shortMessage(err: unknown): string {
  const message = err instanceof Error ? err.message || err.name : String(err);
  // Connection errors can quote a URL or a keyword connection string; never echo credentials
  // to an unauthenticated caller.
  const scrubbed = message
    .replace(/([a-z][a-z0-9+.-]*:\/\/)\S*@/gi, "$1")
    .replace(/(password\s*=\s*)\S+/gi, "$1***")
    .replace(/\s*\n\s*/g, " ");
  return scrubbed.length > 200 ? `${scrubbed.slice(0, 197)}...` : scrubbed;
}
