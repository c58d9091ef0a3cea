// The storage and concurrency core of the HTTP Idempotency-Key contract (IETF draft "The
// Idempotency-Key HTTP Header Field"), independent of HTTP: the first response to a key is
// stored in the same transaction as the work that produced it, and replayed after that.
import type pg from "pg";
import { z } from "zod";
import { type SqlClient, withTransaction } from "../../../db/client";
import { payloadFingerprint } from "../../domain/hash";
import { canonicalJson, type JsonValue, toJsonValue } from "../../domain/json";
import { describeIssues } from "../../domain/zod-issues";

/** The published default retention of a key: 24 hours, as Stripe keeps its keys. */
export const DEFAULT_IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
export const MAX_IDEMPOTENCY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/** Expired rows removed after each stored response: more than one, so the purge outpaces inserts. */
export const PURGE_BATCH = 100;

/** The key as sent: an sf-string per the draft, so printable ASCII; 255 characters at most. */
export const idempotencyKeySchema = z
  .string()
  .min(1, "must not be empty")
  .max(255, "must be at most 255 characters")
  .regex(/^[\x20-\x7e]+$/, "must be printable ASCII");

const scopeSchema = z.object({
  principal: z
    .string()
    .max(320, "must be at most 320 characters")
    .regex(/^[a-z]+:\S+$/, 'must be "kind:id", e.g. "token:…" or "user:…"'),
  operation: z
    .string()
    .max(300, "must be at most 300 characters")
    .regex(/^[A-Z]+ \/\S*$/, 'must be "METHOD /path", e.g. "POST /api/v1/tasks"'),
  key: idempotencyKeySchema,
  fingerprint: z.string().regex(/^[0-9a-f]{64}$/, "must be a sha256 hex digest"),
  retentionMs: z
    .number()
    .int("must be a whole number of milliseconds")
    .min(1, "must be positive")
    .max(MAX_IDEMPOTENCY_RETENTION_MS, `must be at most ${MAX_IDEMPOTENCY_RETENTION_MS} ms`),
});
export type IdempotencyScope = z.infer<typeof scopeSchema>;

const workResponseSchema = z.object({
  status: z.number().int().min(200, "must be 200-599").max(599, "must be 200-599"),
  body: z.unknown(),
  headers: z.record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/), z.string()).optional(),
  store: z.boolean().optional(),
});

/**
 * What the work answers. `store` says whether the response is kept for replays; it defaults to
 * true below 400. A response that is not stored has its transaction rolled back: nothing the
 * work wrote survives, so the key stays unused and the client may retry it (the draft lets a
 * failed request be retried with the same key).
 */
export type WorkResponse = {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  store?: boolean;
};

export type IdempotentResponse = {
  status: number;
  body: JsonValue;
  headers: Record<string, string>;
};

export type IdempotentOutcome =
  /** The work ran now; `stored: false` means it was rolled back and the key is still free. */
  | ({ kind: "fresh"; stored: boolean } & IdempotentResponse)
  /** The first response to this key and body; the work did not run. */
  | ({ kind: "replay"; createdAt: Date } & IdempotentResponse)
  /** The key was used with another body: `fingerprint` is this request's. */
  | { kind: "mismatch"; fingerprint: string; storedFingerprint: string }
  /** Another request with this key is running now. */
  | { kind: "in_flight" };

/** The request fingerprint: sha256 of the canonical JSON body. Throws a JsonValueError for a body jsonb cannot hold. */
export function requestFingerprint(body: unknown): string {
  return payloadFingerprint(toJsonValue(body, "request body"));
}

// Thrown inside the transaction to roll it back, caught outside it.
class NotStored extends Error {
  constructor(readonly response: IdempotentResponse) {
    super("response not stored");
  }
}
class LostRace extends Error {}

/**
 * Runs `work` at most once per (principal, operation, key) within the retention window.
 *
 * A stored response is final until it expires, so it is read without a lock and many replays
 * never contend. Only when no live row exists is the key locked with a transaction-scoped
 * advisory lock, taken without waiting (held → in_flight); the row is read again under the lock
 * (a holder that just committed made its row visible before releasing the lock), then the work
 * runs and its response is inserted in the same transaction. The primary key is the backstop:
 * losing it rolls the work back and answers in_flight.
 */
export async function runIdempotent(
  pool: pg.Pool,
  scope: IdempotencyScope,
  work: (client: SqlClient) => Promise<WorkResponse>,
): Promise<IdempotentOutcome> {
  const parsed = scopeSchema.safeParse(scope);
  if (!parsed.success) throw new Error(`idempotency scope: ${describeIssues(parsed.error)}`);
  const s = parsed.data;
  let outcome: IdempotentOutcome;
  try {
    // Each statement must see what committed before it began, whatever the server's default.
    outcome = await withTransaction(
      pool,
      async (client) => {
        const seen = await readLive(client, s, "lock");
        if (seen.outcome) return seen.outcome;
        if (!seen.locked) return { kind: "in_flight" as const };
        // A new statement, so a new snapshot: a holder that committed just before we took the
        // lock is seen now. An expired key is a new key: its old row goes in the same statement.
        const again = await readLive(client, s, "drop-expired");
        if (again.outcome) return again.outcome;
        const response = parseWorkResponse(await work(client));
        if (!response.store) throw new NotStored(response.response);
        // Expired keys go with the insert, at the very end: their row locks last for the COMMIT.
        const inserted = await client.query<{ inserted: number }>({
          name: "idempotency_store",
          text: `with purged as (
                   delete from idempotency_keys
                   where (principal, operation, key) in (
                     select principal, operation, key from idempotency_keys
                     where expires_at <= now()
                     order by expires_at
                     limit ${PURGE_BATCH}
                     for update skip locked)
                 ), ins as (
                   insert into idempotency_keys
                     (principal, operation, key, fingerprint, status, body, headers, expires_at)
                   values ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8::double precision / 1000))
                   on conflict do nothing
                   returning 1
                 )
                 select (select count(*) from ins)::int as inserted`,
          values: [
            s.principal,
            s.operation,
            s.key,
            s.fingerprint,
            response.response.status,
            JSON.stringify(response.response.body),
            JSON.stringify(response.response.headers),
            s.retentionMs,
          ],
        });
        if (inserted.rows[0]?.inserted !== 1) throw new LostRace();
        return { kind: "fresh" as const, stored: true, ...response.response };
      },
      "read committed",
    );
  } catch (err) {
    if (err instanceof NotStored) return { kind: "fresh", stored: false, ...err.response };
    if (err instanceof LostRace) return { kind: "in_flight" };
    throw err;
  }
  return outcome;
}

/**
 * Deletes up to `limit` expired keys, oldest first, skipping rows another transaction holds;
 * returns how many went. Called after every stored response; a periodic caller (the worker's
 * reap loop) may call it too.
 */
export async function purgeExpiredIdempotencyKeys(
  client: SqlClient,
  limit = 1000,
): Promise<number> {
  const n = z.number().int().min(1).max(100_000).safeParse(limit);
  if (!n.success) throw new Error(`purge limit: ${describeIssues(n.error)}`);
  const { rowCount } = await client.query(
    `delete from idempotency_keys
     where (principal, operation, key) in (
       select principal, operation, key from idempotency_keys
       where expires_at <= now()
       order by expires_at
       limit $1
       for update skip locked)`,
    [n.data],
  );
  return rowCount ?? 0;
}

type Seen = Exclude<IdempotentOutcome, { kind: "fresh" | "in_flight" }>;

/**
 * The live row of this key, if any. `lock`: with none, also tries the key's transaction-scoped
 * advisory lock, without waiting (taken only when there is nothing to replay, so replays never
 * contend). `drop-expired`: also deletes the key's expired row, which the insert would meet.
 */
async function readLive(
  client: SqlClient,
  s: IdempotencyScope,
  also: "lock" | "drop-expired",
): Promise<{ outcome: Seen | null; locked: boolean }> {
  const { rows } = await client.query<{
    fingerprint: string | null;
    status: number;
    body: JsonValue;
    headers: Record<string, string>;
    created_at: Date;
    locked: boolean | null;
  }>({
    name: `idempotency_read_${also}`,
    text:
      also === "lock"
        ? `with live as (
             select fingerprint, status, body, headers, created_at from idempotency_keys
             where principal = $1 and operation = $2 and key = $3 and expires_at > now()
           )
           select live.*, null::boolean as locked from live
           union all
           select null, null, null, null, null, pg_try_advisory_xact_lock(hashtextextended($4, 0))
           where not exists (select 1 from live)`
        : `with expired as (
             delete from idempotency_keys
             where principal = $1 and operation = $2 and key = $3 and expires_at <= now()
           )
           select fingerprint, status, body, headers, created_at, null::boolean as locked
           from idempotency_keys
           where principal = $1 and operation = $2 and key = $3 and expires_at > now()`,
    values:
      also === "lock"
        ? [
            s.principal,
            s.operation,
            s.key,
            canonicalJson(["idempotency", s.principal, s.operation, s.key]),
          ]
        : [s.principal, s.operation, s.key],
  });
  const row = rows[0];
  if (!row || row.fingerprint === null) return { outcome: null, locked: row?.locked === true };
  if (row.fingerprint !== s.fingerprint) {
    return {
      outcome: { kind: "mismatch", fingerprint: s.fingerprint, storedFingerprint: row.fingerprint },
      locked: false,
    };
  }
  return {
    outcome: {
      kind: "replay",
      status: row.status,
      body: row.body,
      headers: row.headers,
      createdAt: row.created_at,
    },
    locked: false,
  };
}

function parseWorkResponse(value: WorkResponse): { response: IdempotentResponse; store: boolean } {
  const parsed = workResponseSchema.safeParse(value);
  if (!parsed.success) throw new Error(`idempotent work response: ${describeIssues(parsed.error)}`);
  const { status, body, headers, store } = parsed.data;
  return {
    // As jsonb will hold it, so the fresh response and its replays carry the same JSON.
    response: { status, body: toJsonValue(body, "response body"), headers: headers ?? {} },
    store: store ?? status < 400,
  };
}
